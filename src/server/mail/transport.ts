import { buildMessage, parseMailbox } from './message.ts';
import { classifySmtpError, cleanErrorText, type DeliveryResult } from './smtp-outcome.ts';
import { RFC_5321_TIMEOUTS, SmtpSessionPool, type SmtpTimeouts } from './smtp-session.ts';
import { textFromHtml } from './text-part.ts';

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
  /** The Date header: when the mail was queued, so every attempt sends the same bytes. */
  date: Date;
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

/**
 * SMTP delivery with our rules: one recipient per message and per transaction, RFC 5321's waits,
 * and a message that cannot be built fails at once (sending it again cannot help).
 * It sends the exact bytes of `buildMessage` (src/server/mail/message.ts), the builder the preview
 * measures.
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
        message = await buildMessage({
          from: options.mailFrom,
          to: [mail.to],
          replyTo: mail.replyTo,
          subject: mail.subject,
          html: mail.html,
          text: mail.text ?? textFromHtml(mail.html),
          messageId: mail.messageId,
          date: mail.date,
        });
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
