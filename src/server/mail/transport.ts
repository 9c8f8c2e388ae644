import nodemailer from 'nodemailer';
import type { Readable } from 'node:stream';
import { buildMessage, parseMailbox } from './message.ts';
import {
  classifySmtpError,
  cleanErrorText,
  type DeliveryResult,
  type RejectedRecipient,
} from './smtp-outcome.ts';
import { textFromHtml } from './text-part.ts';

/** One mail as the outbox hands it to a transport. */
export interface DeliverableMail {
  /** "<uuid@domain>", the same on every attempt. */
  messageId: string;
  to: string[];
  replyTo: string | null;
  subject: string;
  html: string;
  /** Generated from the HTML when null. */
  text: string | null;
  /** The Date header: when the mail was queued, so every attempt sends the same bytes. */
  date: Date;
}

/** What the outbox worker needs from a mail transport. */
export interface MailTransport {
  deliver(mail: DeliverableMail, options?: { signal?: AbortSignal }): Promise<DeliveryResult>;
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
  /**
   * Every network wait is bounded, and shorter than the outbox lease, so a hung server turns into
   * a retry instead of a row stuck in `sending`.
   */
  connectionTimeoutMs?: number;
  greetingTimeoutMs?: number;
  socketTimeoutMs?: number;
  /** Messages per pooled connection before it is recycled. */
  maxMessagesPerConnection?: number;
}

export const DEFAULT_SMTP_TIMEOUTS = {
  connectionTimeoutMs: 10_000,
  greetingTimeoutMs: 10_000,
  socketTimeoutMs: 30_000,
};

/**
 * nodemailer's pooled SMTP transport with our rules: address objects only, no file or URL access,
 * From = MAIL_FROM, Message-ID from the outbox row, multipart/alternative with a text part. It
 * sends the exact bytes of `buildMessage` (src/server/mail/message.ts), the builder the preview
 * measures, as a raw message with its envelope.
 */
export function createSmtpTransport(options: SmtpTransportOptions): MailTransport {
  const from = parseMailbox(options.mailFrom);
  const transporter = nodemailer.createTransport({
    pool: true,
    url: options.url,
    maxConnections: Math.max(1, options.maxConnections),
    maxMessages: options.maxMessagesPerConnection ?? 500,
    connectionTimeout: options.connectionTimeoutMs ?? DEFAULT_SMTP_TIMEOUTS.connectionTimeoutMs,
    greetingTimeout: options.greetingTimeoutMs ?? DEFAULT_SMTP_TIMEOUTS.greetingTimeoutMs,
    socketTimeout: options.socketTimeoutMs ?? DEFAULT_SMTP_TIMEOUTS.socketTimeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
  });

  // Whether the message body started to flow decides if a lost connection leaves the outcome
  // unknown. nodemailer reads the message stream only after the server's 354, so we keep the
  // stream it builds for each Message-ID and ask whether anything was read from it.
  const bodies = new Map<string, { stream?: Readable }>();
  transporter.use('stream', (mail, done) => {
    const probe = bodies.get(mail.message.messageId());
    if (probe) {
      mail.message.processFunc((input) => {
        probe.stream = input as Readable;
        return input;
      });
    }
    done();
  });

  return {
    async deliver(mail, { signal } = {}) {
      const probe: { stream?: Readable } = {};
      bodies.set(mail.messageId, probe);
      try {
        const raw = await buildMessage({
          from: options.mailFrom,
          to: mail.to,
          replyTo: mail.replyTo,
          subject: mail.subject,
          html: mail.html,
          text: mail.text ?? textFromHtml(mail.html),
          messageId: mail.messageId,
          date: mail.date,
        });
        const info = await transporter.sendMail({
          raw,
          envelope: { from: from.address, to: mail.to.map((address) => ({ name: '', address })) },
          // Not written into the raw bytes: it keys the stream probe above.
          messageId: mail.messageId,
          disableFileAccess: true,
          disableUrlAccess: true,
          signal,
        });
        const rejectedErrors = (info.rejectedErrors ?? []) as {
          recipient?: string;
          responseCode?: number;
          response?: string;
          message?: string;
        }[];
        const rejected: RejectedRecipient[] = rejectedErrors.map((e) => ({
          address: e.recipient ?? '',
          code: typeof e.responseCode === 'number' ? e.responseCode : null,
          message: cleanErrorText(e.response ?? e.message ?? 'rejected'),
        }));
        return { status: 'sent', response: cleanErrorText(String(info.response ?? '')), rejected };
      } catch (err) {
        const dataStarted = probe.stream?.readableDidRead === true;
        return classifySmtpError(err as object, dataStarted);
      } finally {
        bodies.delete(mail.messageId);
      }
    },
    close() {
      transporter.close();
    },
  };
}
