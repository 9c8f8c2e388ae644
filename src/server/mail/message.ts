import { createHash } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';

/**
 * The one builder of a mail's MIME bytes (docs/architecture.md §9). The transport sends exactly
 * what this returns, the preview measures it, and `message.eml` rebuilds it from what was stored,
 * so all three are the same bytes for the same input.
 */
export interface MessageInput {
  /** MAIL_FROM, "Name <user@domain>" or "user@domain". */
  from: string;
  /** Plain addresses, already validated. */
  to: string[];
  replyTo: string | null;
  subject: string;
  html: string;
  text: string;
  /** "<uuid@domain>". */
  messageId: string;
  /** The Date header: when the mail was accepted (the same on every attempt). */
  date: Date;
}

/** The headers that differ between the recipients of one email: everything else is shared. */
export const PER_RECIPIENT_HEADERS = ['To', 'Message-ID', 'Date'] as const;

/** "Name <user@domain>" or "user@domain" → an address object (never a string nodemailer parses). */
export function parseMailbox(value: string): { name: string; address: string } {
  const match = /^\s*(.*?)\s*<([^<>\s]+)>\s*$/.exec(value);
  if (!match) return { name: '', address: value.trim() };
  const name = (match[1] ?? '').replace(/^"(.*)"$/, '$1').trim();
  return { name, address: match[2]! };
}

const stripLineBreaks = (s: string) => s.replace(/[\r\n]+/g, ' ');

/**
 * The multipart boundary comes from a hash of the content, so the same input gives the same
 * bytes, and no part can contain its own boundary (that would need a SHA-256 fixed point).
 */
function boundaryFor(input: MessageInput): string {
  return createHash('sha256').update(input.html).update('\0').update(input.text).digest('hex').slice(0, 24);
}

/** nodemailer 10 supports `baseBoundary`; its type package does not know it yet. */
type ComposerOptions = Mail.Options & { baseBoundary: string; newline: string };

/**
 * Builds the message as it leaves: CRLF line ends (what SMTP carries, so the bytes at the
 * recipient's server are these bytes), no X-Mailer, no file or URL access.
 */
export function buildMessage(input: MessageInput): Promise<Buffer> {
  const options: ComposerOptions = {
    from: parseMailbox(input.from),
    to: input.to.map((address) => ({ name: '', address })),
    replyTo: input.replyTo ? { name: '', address: input.replyTo } : undefined,
    subject: stripLineBreaks(input.subject),
    messageId: input.messageId,
    date: input.date,
    text: input.text,
    html: input.html,
    baseBoundary: boundaryFor(input),
    newline: '\r\n',
    disableFileAccess: true,
    disableUrlAccess: true,
  };
  return new Promise((resolve, reject) => {
    new MailComposer(options).compile().build((err, message) => (err ? reject(err) : resolve(message)));
  });
}

export interface MessageHeader {
  name: string;
  value: string;
}

/** The header block of a built message, unfolded, in order. */
export function headersOf(message: Buffer): MessageHeader[] {
  const end = message.indexOf('\r\n\r\n');
  const block = message.subarray(0, end === -1 ? message.length : end).toString('utf8');
  const headers: MessageHeader[] = [];
  for (const line of block.split('\r\n')) {
    const last = headers[headers.length - 1];
    if (/^[ \t]/.test(line) && last) last.value += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) headers.push({ name: line.slice(0, colon), value: line.slice(colon + 1).trim() });
    }
  }
  return headers;
}

/** The headers every recipient of the message gets alike (To, Message-ID and Date left out). */
export function sharedHeadersOf(message: Buffer): MessageHeader[] {
  const perRecipient = new Set<string>(PER_RECIPIENT_HEADERS.map((h) => h.toLowerCase()));
  return headersOf(message).filter((h) => !perRecipient.has(h.name.toLowerCase()));
}
