import type { Buffer } from 'node:buffer';
import { buildMessage, sharedHeadersOf, type MessageHeader } from '../mail/message.ts';

/**
 * The second half of `prepare` (prepare.ts): the MIME message as it leaves, to measure it. Its own
 * module, so that the transform process's measuring thread (measure-thread.ts) loads only this, the
 * MIME builder and the text-part rules (text-part.ts, for the text it generates beside the inlining).
 */

/** Who the message is from and to: what the measured message carries besides the content. */
export interface PrepareEnvelope {
  /** MAIL_FROM. */
  from: string;
  /** The recipient the size is measured for (see `bytes.message`). */
  to: string;
  replyTo: string | null;
  /** The domain of the Message-IDs the outbox gives (MAIL_FROM's). */
  messageIdDomain: string;
  /** The Date header of the measured message. */
  date: Date;
}

/** An envelope as it travels between processes and threads: the date as milliseconds. */
export type WireEnvelope = Omit<PrepareEnvelope, 'date'> & { date: number };

/** What the message is made from besides its headers (`PreparedHtml` in prepare.ts). */
export interface MessagePart {
  /** The HTML part as sent. */
  html: string;
  /** The text part as sent (LF line ends): the user's own, or generated (prepare.ts). */
  text: string;
  subject: string;
}

/** A Message-ID of the outbox's shape (`<uuid@domain>`) and length, for measuring. */
export function placeholderMessageId(domain: string): string {
  return `<00000000-0000-0000-0000-000000000000@${domain}>`;
}

/** The second half: the MIME message built exactly as it leaves, measured. */
export interface MeasuredMessage {
  /** The encoded message for `envelope.to` (see `Prepared.bytes.message`). */
  message: Buffer;
  headers: MessageHeader[];
}

/** The message as it leaves. */
export async function measureMessage(part: MessagePart, envelope: PrepareEnvelope): Promise<MeasuredMessage> {
  const message = await buildMessage({
    from: envelope.from,
    to: [envelope.to],
    replyTo: envelope.replyTo,
    subject: part.subject,
    html: part.html,
    text: part.text,
    messageId: placeholderMessageId(envelope.messageIdDomain),
    date: envelope.date,
  });
  return { message, headers: sharedHeadersOf(message) };
}
