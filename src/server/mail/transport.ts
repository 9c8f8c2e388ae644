import { convert } from 'html-to-text';
import MailComposer from 'nodemailer/lib/mail-composer';
import { classifySmtpError, cleanErrorText, type DeliveryResult } from './smtp-outcome.ts';
import { RFC_5321_TIMEOUTS, SmtpSessionPool, type SmtpTimeouts } from './smtp-session.ts';

/** One message to one recipient, as the outbox hands it to a transport. */
export interface DeliverableMail {
  /** "<uuid@domain>", the same on every attempt. */
  messageId: string;
  /** The one recipient: the To: header and the envelope. */
  to: string;
  replyTo: string | null;
  subject: string;
  html: string;
  /** Generated from the HTML when null. */
  text: string | null;
}

export interface DeliverOptions {
  signal?: AbortSignal;
  /**
   * Awaited just before the message's terminating "." goes out (the outbox records that the
   * message may be accepted from then on). If it rejects, the attempt stops without the dot.
   */
  beforeFinalDot?: () => Promise<void>;
}

/** What the outbox worker needs from a mail transport. */
export interface MailTransport {
  deliver(mail: DeliverableMail, options?: DeliverOptions): Promise<DeliveryResult>;
  /** Closes pooled connections; sends still running fail. */
  close(): void;
}

export interface SmtpTransportOptions {
  /** smtp://user:pass@host:port or smtps://… */
  url: string;
  /** MAIL_FROM: From header and envelope sender. */
  mailFrom: string;
  /** Pooled connections (one per concurrent delivery). */
  maxConnections: number;
  /** RFC 5321's waits by default (docs/decisions/0040-smtp-timeouts-rfc-5321.md). */
  timeouts?: SmtpTimeouts;
  /** Messages per pooled connection before it is recycled. */
  maxMessagesPerConnection?: number;
}

/** "Name <user@domain>" or "user@domain" → an address object (never a string nodemailer parses). */
export function parseMailbox(value: string): { name: string; address: string } {
  const match = /^\s*(.*?)\s*<([^<>\s]+)>\s*$/.exec(value);
  if (!match) return { name: '', address: value.trim() };
  const name = (match[1] ?? '').replace(/^"(.*)"$/, '$1').trim();
  return { name, address: match[2]! };
}

/** The text/plain alternative of an HTML mail. */
export function textFromHtml(html: string): string {
  return convert(html, {
    wordwrap: 78,
    selectors: [
      { selector: 'img', format: 'skip' },
      { selector: 'a', options: { hideLinkHrefIfSameAsText: true } },
      { selector: 'style', format: 'skip' },
      { selector: 'head', format: 'skip' },
    ],
  });
}

const stripLineBreaks = (s: string) => s.replace(/[\r\n]+/g, ' ');

/**
 * The MIME message for one recipient: From MAIL_FROM, To only that recipient, Reply-To, the row's
 * Message-ID, multipart/alternative with the HTML and a text part. Address objects only (never a
 * string nodemailer would parse), no file or URL access.
 */
export function composeMessage(
  mail: DeliverableMail,
  from: { name: string; address: string },
): Promise<Buffer> {
  const composer = new MailComposer({
    from,
    to: { name: '', address: mail.to },
    replyTo: mail.replyTo ? { name: '', address: mail.replyTo } : undefined,
    subject: stripLineBreaks(mail.subject),
    messageId: mail.messageId,
    text: mail.text ?? textFromHtml(mail.html),
    html: mail.html,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return new Promise((resolve, reject) => {
    composer.compile().build((err, message) => (err ? reject(err) : resolve(message)));
  });
}

/**
 * SMTP delivery with our rules: one recipient per message and per transaction, RFC 5321's waits,
 * and a message that cannot be built fails at once (sending it again cannot help).
 */
export function createSmtpTransport(options: SmtpTransportOptions): MailTransport {
  const from = parseMailbox(options.mailFrom);
  const pool = new SmtpSessionPool({
    url: options.url,
    maxConnections: options.maxConnections,
    maxMessagesPerConnection: options.maxMessagesPerConnection,
    timeouts: options.timeouts ?? RFC_5321_TIMEOUTS,
  });
  return {
    async deliver(mail, { signal, beforeFinalDot } = {}) {
      let message: Buffer;
      try {
        message = await composeMessage(mail, from);
      } catch (err) {
        return {
          status: 'failed',
          code: null,
          message: cleanErrorText(
            `This email could not be turned into a message (${(err as Error).message ?? String(err)}); ` +
              'sending it again cannot help',
          ),
          uncertain: false,
        };
      }
      const result = await pool.send({ from: from.address, to: mail.to, message, signal, beforeFinalDot });
      if (result.ok) return { status: 'sent', response: cleanErrorText(result.response) };
      return classifySmtpError(result.error, result.finalDotSent);
    },
    close() {
      pool.close();
    },
  };
}
