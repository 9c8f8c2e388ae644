import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.ts';

/** Who a mail is for decides its place in the queue: system mail, then Pro, then Free. */
export const MAIL_PRIORITY = { system: 0, pro: 1, free: 2 } as const;
export type MailPriority = keyof typeof MAIL_PRIORITY;

export const OUTBOX_CHANNEL = 'mail_outbox';

export interface OutgoingMail {
  priority: MailPriority;
  /** Plain addresses, already validated. */
  to: string[];
  subject: string;
  html: string;
  /** Plain-text part; generated from the HTML at delivery when absent. */
  text?: string;
  replyTo?: string;
  /** The user's email row this delivery belongs to (test sends). */
  emailId?: string;
}

/** Domain for generated Message-IDs (the part after @ in MAIL_FROM). */
export function messageIdDomain(mailFrom: string): string {
  return /@([^\s>]+)>?\s*$/.exec(mailFrom)?.[1] ?? 'localhost';
}

/**
 * The one door for outgoing mail (guide §1.5). Pass the transaction of the change that causes
 * the mail, so both commit or neither does; workers are woken by NOTIFY when it commits.
 */
export async function enqueueMail(
  executor: Kysely<Database> | Transaction<Database>,
  mail: OutgoingMail,
  options: { messageIdDomain?: string } = {},
): Promise<{ id: string; messageId: string }> {
  const messageId = `<${randomUUID()}@${options.messageIdDomain ?? 'proofmail.local'}>`;
  const row = await executor
    .insertInto('mail_outbox')
    .values({
      priority: MAIL_PRIORITY[mail.priority],
      message_id: messageId,
      to_addresses: mail.to,
      reply_to: mail.replyTo ?? null,
      subject: mail.subject,
      html: mail.html,
      text: mail.text ?? null,
      email_id: mail.emailId ?? null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await sql`select pg_notify(${OUTBOX_CHANNEL}, '')`.execute(executor);
  return { id: row.id, messageId };
}
