import { randomUUID } from 'node:crypto';
import { sql, type QueryCreator } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { OutboxClaim } from './handoff.ts';
import type { OutboxRow } from './outbox.repo.ts';

/** Who a mail is for decides its place in the queue: system mail, then Pro, then Free. */
export const MAIL_PRIORITY = { system: 0, pro: 1, free: 2 } as const;
export type MailPriority = keyof typeof MAIL_PRIORITY;

export const OUTBOX_CHANNEL = 'mail_outbox';

interface OutgoingBase {
  priority: MailPriority;
  /** Plain addresses, already validated: one message (one row, one Message-ID) per address. */
  to: string[];
  replyTo?: string;
}

/**
 * A user's test send references its email row, which holds the subject and HTML once for every
 * recipient (docs/decisions/0038-one-outbox-row-per-recipient.md); system mail carries its own
 * small content.
 */
export type OutgoingMail = OutgoingBase &
  (
    | {
        subject: string;
        html: string;
        /** Plain-text part; generated from the HTML at delivery when absent. */
        text?: string;
        emailId?: undefined;
      }
    | { emailId: string; subject?: undefined; html?: undefined; text?: undefined }
  );

export interface QueuedMail {
  id: string;
  messageId: string;
  to: string;
}

/** A mail stored already claimed (`claimedBy`): its whole row, for the worker that holds it. */
export interface ClaimedMail extends QueuedMail {
  row: OutboxRow;
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
 * Each recipient gets a message of its own: To: names only them, and its delivery is tried,
 * retried and recorded on its own row.
 *
 * `executor` may also be a query creator that already carries data-modifying CTEs (`db.with(…)`):
 * the outbox rows are then inserted in the same single statement as the change that causes them,
 * which is atomic without a transaction (a test send stores its email, outbox and ledger rows in
 * one round trip: src/server/features/email/send.service.ts).
 */
export async function enqueueMail(
  executor: QueryCreator<Database>,
  mail: OutgoingMail,
  options?: { messageIdDomain?: string },
): Promise<QueuedMail[]>;
/**
 * With `claimedBy`, the rows are stored already claimed by that worker of this process, under its
 * lease, and nobody is woken: the caller hands them to it (src/server/mail/handoff.ts).
 */
export async function enqueueMail(
  executor: QueryCreator<Database>,
  mail: OutgoingMail,
  options: { messageIdDomain?: string; claimedBy: OutboxClaim },
): Promise<ClaimedMail[]>;
export async function enqueueMail(
  executor: QueryCreator<Database>,
  mail: OutgoingMail,
  options: { messageIdDomain?: string; claimedBy?: OutboxClaim } = {},
): Promise<QueuedMail[]> {
  if (mail.to.length === 0) throw new Error('enqueueMail: no recipients');
  const priority = MAIL_PRIORITY[mail.priority];
  const domain = options.messageIdDomain ?? 'proofmail.local';
  const rows = mail.to.map((address) => ({
    priority,
    message_id: `<${randomUUID()}@${domain}>`,
    to_addresses: [address],
    reply_to: mail.replyTo ?? null,
    subject: mail.subject ?? null,
    html: mail.html ?? null,
    text: mail.text ?? null,
    email_id: mail.emailId ?? null,
  }));
  const claim = options.claimedBy;
  let inserted: { id: string; message_id: string }[];
  if (claim) {
    // As claimDue leaves a row it claims (src/server/mail/outbox.repo.ts).
    const claimed = rows.map((r) => ({
      ...r,
      state: 'sending' as const,
      attempts: 1,
      lease_until: claim.leaseUntil,
      locked_by: claim.workerId,
      claimed_at: sql<Date>`now()`,
    }));
    inserted = await executor.insertInto('mail_outbox').values(claimed).returningAll().execute();
  } else if (shouldNotify(priority)) {
    // One statement: the rows and one wake-up (NOTIFY is delivered when the transaction commits).
    // The payload is the priority: a worker with a full buffer may trade a buffered Free mail for it.
    inserted = await executor
      .with('queued', (db) => db.insertInto('mail_outbox').values(rows).returning(['id', 'message_id']))
      .with('woken', (db) =>
        db.selectNoFrom(sql<string>`pg_notify(${OUTBOX_CHANNEL}, ${String(priority)})`.as('notified')),
      )
      .selectFrom(['queued', 'woken'])
      .select(['queued.id', 'queued.message_id'])
      .execute();
  } else {
    inserted = await executor
      .insertInto('mail_outbox')
      .values(rows)
      .returning(['id', 'message_id'])
      .execute();
  }
  const byMessageId = new Map(inserted.map((r) => [r.message_id, r]));
  return rows.map((r) => {
    const stored = byMessageId.get(r.message_id)!;
    // A claimed row comes back whole (RETURNING *), for the worker that holds it.
    return {
      id: stored.id,
      messageId: r.message_id,
      to: r.to_addresses[0]!,
      ...(claim && { row: stored as OutboxRow }),
    };
  });
}
