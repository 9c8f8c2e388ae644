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

/**
 * PostgreSQL serialises the commits of transactions that NOTIFY (a database-wide lock held through
 * the commit's disk flush), so a NOTIFY per mail would cap how fast mail can be accepted. System
 * and Pro mail always notify; Free mail notifies at most once per FREE_NOTIFY_INTERVAL_MS from
 * this process. A Free mail enqueued right behind a notified one is still claimed promptly: a
 * busy worker claims again after every delivery, and an idle one makes a trailing claim shortly
 * after each wake-up (OutboxWorker); the poll is the backstop.
 * (docs/decisions/0004-notify-coalescing.md)
 */
export const FREE_NOTIFY_INTERVAL_MS = 20;
let lastFreeNotifyAt = 0;

function shouldNotify(priority: number): boolean {
  if (priority !== MAIL_PRIORITY.free) return true;
  const now = Date.now();
  if (now - lastFreeNotifyAt < FREE_NOTIFY_INTERVAL_MS) return false;
  lastFreeNotifyAt = now;
  return true;
}

/**
 * The one door for outgoing mail (docs/architecture.md §1.5). Pass the transaction of the change
 * that causes the mail, so both commit or neither does; workers are woken by NOTIFY when it commits.
 */
export async function enqueueMail(
  executor: Kysely<Database> | Transaction<Database>,
  mail: OutgoingMail,
  options: { messageIdDomain?: string } = {},
): Promise<{ id: string; messageId: string }> {
  const messageId = `<${randomUUID()}@${options.messageIdDomain ?? 'proofmail.local'}>`;
  const priority = MAIL_PRIORITY[mail.priority];
  const values = {
    priority,
    message_id: messageId,
    to_addresses: mail.to,
    reply_to: mail.replyTo ?? null,
    subject: mail.subject,
    html: mail.html,
    text: mail.text ?? null,
    email_id: mail.emailId ?? null,
  };
  let row: { id: string };
  if (shouldNotify(priority)) {
    // One statement: the row and the wake-up (NOTIFY is delivered when the transaction commits).
    // The payload is the priority: a worker with a full buffer still claims at once for system/Pro.
    row = await executor
      .with('queued', (db) => db.insertInto('mail_outbox').values(values).returning('id'))
      .selectFrom('queued')
      .select(['queued.id', sql<string>`pg_notify(${OUTBOX_CHANNEL}, ${String(priority)})`.as('notified')])
      .executeTakeFirstOrThrow();
  } else {
    row = await executor.insertInto('mail_outbox').values(values).returning('id').executeTakeFirstOrThrow();
  }
  return { id: row.id, messageId };
}
