import { simpleParser, type AddressObject } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { asciiAddress } from '../../shared/recipients.ts';
import { systemClock, type Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { CaughtMailHeader } from '../db/schema.ts';
import { insertCaughtMail } from './caught-mail.repo.ts';
import { isLoopbackAddress } from '../http/loopback.ts';

/**
 * The local mail catcher (no SMTP_URL): a real SMTP server on 127.0.0.1 that the transport
 * delivers to like any relay. Each message is parsed and stored in PostgreSQL, then answered
 * 250, so "sent" means "readable at /dev/mailbox". Nothing leaves the machine.
 */

export interface MailCatcher {
  /** smtp://127.0.0.1:<port> for the transport. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface MailCatcherOptions {
  db: Db;
  clock?: Clock;
  log?: (message: string) => void;
  /** Port on 127.0.0.1; 0 (default) = any free port. */
  port?: number;
  maxMessageBytes?: number;
}

const DEFAULT_MAX_BYTES = 25 * 1024 * 1024;

function smtpError(message: string, responseCode: number): Error {
  return Object.assign(new Error(message), { responseCode });
}

function addressTexts(value: AddressObject | AddressObject[] | undefined): string {
  if (!value) return '';
  // "Name <address>" without mailparser's quoting, for people reading the mailbox.
  return (Array.isArray(value) ? value : [value])
    .flatMap((v) => v.value)
    .map((a) => (a.address ? (a.name ? `${a.name} <${a.address}>` : a.address) : a.name))
    .join(', ');
}

/** Raw header lines as name/value pairs, folded lines joined, in message order. */
function headerList(lines: readonly { key: string; line: string }[]): CaughtMailHeader[] {
  return lines.map(({ key, line }) => {
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : key;
    const value = (colon > 0 ? line.slice(colon + 1) : line).replace(/\r?\n[ \t]+/g, ' ').trim();
    return { name, value };
  });
}

function readAll(stream: SMTPServerDataStream, limit: number): Promise<Buffer | 'too-large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    });
    stream.on('end', () => resolve(tooLarge || stream.sizeExceeded ? 'too-large' : Buffer.concat(chunks)));
    stream.on('error', reject);
  });
}

export async function startMailCatcher(options: MailCatcherOptions): Promise<MailCatcher> {
  const { db } = options;
  const clock = options.clock ?? systemClock;
  const log = options.log ?? (() => undefined);
  const maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_BYTES;

  const store = async (raw: Buffer, session: SMTPServerSession) => {
    const parsed = await simpleParser(raw);
    await insertCaughtMail(db, {
      messageId: parsed.messageId ?? null,
      // smtp-server turns an address's domain into Unicode; Proofmail sends, and keeps accounts and
      // history in, the ASCII form (src/shared/recipients.ts), so the mailbox lists it as sent.
      envelopeFrom: session.envelope.mailFrom ? asciiAddress(session.envelope.mailFrom.address) : null,
      from: addressTexts(parsed.from),
      to: session.envelope.rcptTo.map((r) => asciiAddress(r.address)),
      subject: parsed.subject ?? '',
      html: typeof parsed.html === 'string' ? parsed.html : null,
      text: parsed.text ?? null,
      headers: headerList(parsed.headerLines),
      size: raw.length,
      receivedAt: clock.now(),
    });
  };

  const server = new SMTPServer({
    name: 'proofmail-catcher.localhost',
    banner: 'Proofmail local mail catcher (mail is stored, never delivered)',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: maxBytes,
    logger: false,
    // Idle pooled connections must not hold up shutdown.
    closeTimeout: 2_000,
    onConnect(session, callback) {
      // It listens on loopback only; this also refuses anything a proxy might forward.
      if (!isLoopbackAddress(session.remoteAddress))
        return callback(smtpError('Local connections only', 554));
      callback();
    },
    onData(stream, session, callback) {
      readAll(stream, maxBytes)
        .then(async (raw) => {
          if (raw === 'too-large') return callback(smtpError(`Message exceeds ${maxBytes} bytes`, 552));
          await store(raw, session);
          callback(null, 'Caught by Proofmail: stored locally, not delivered');
        })
        .catch((err: unknown) => {
          log(`mail catcher: could not store a message (${(err as Error).message})`);
          callback(smtpError('Could not store the message, try again later', 451));
        });
    },
  });
  server.on('error', (err) => log(`mail catcher: ${err.message}`));

  await new Promise<void>((resolve, reject) => {
    server.server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.server.off('error', reject);
      resolve();
    });
  });
  const port = (server.server.address() as AddressInfo).port;
  log(
    `Local mail catcher on 127.0.0.1:${port} (no SMTP_URL set): mail is stored, not delivered; read it at /dev/mailbox`,
  );

  let stopping: Promise<void> | undefined;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    stop: () => (stopping ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}
