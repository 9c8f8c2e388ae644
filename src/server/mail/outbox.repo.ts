import { sql, type Selectable } from 'kysely';
import type { Db } from '../db/database.ts';
import type { MailOutboxTable } from '../db/schema.ts';

/** The SQL of the delivery state machine (docs/architecture.md §5); the worker decides, this file writes. */

export type OutboxRow = Selectable<MailOutboxTable>;

/** Queue order: system before Pro before Free, then by due time, then by age. */
export function byQueueOrder(a: OutboxRow, b: OutboxRow): number {
  return (
    a.priority - b.priority ||
    a.next_attempt_at.getTime() - b.next_attempt_at.getTime() ||
    a.created_at.getTime() - b.created_at.getTime()
  );
}

/**
 * Takes up to `limit` due mails for this worker: system before Pro before Free, then by due time
 * and age. SKIP LOCKED lets any number of workers in any number of processes claim side by side
 * without waiting on each other or taking the same row. `belowPriority` takes only mail that
 * goes before that priority (a worker trading a buffered mail for a more urgent one).
 */
export async function claimDue(
  db: Db,
  args: { workerId: string; limit: number; now: Date; leaseUntil: Date; belowPriority?: number },
): Promise<OutboxRow[]> {
  const { rows } = await sql<OutboxRow>`
    update mail_outbox o
       set state = 'sending', attempts = o.attempts + 1, lease_until = ${args.leaseUntil}, locked_by = ${args.workerId},
           claimed_at = now(), final_dot_at = null
      from (select id from mail_outbox
             where state in ('queued', 'retry_wait')
               -- our clock has milliseconds, PostgreSQL's now() microseconds: a mail enqueued in
               -- the same millisecond as this claim is due, not 0.4 ms in the future
               and next_attempt_at < ${args.now}::timestamptz + interval '1 millisecond'
               and priority < ${args.belowPriority ?? 99}
             order by priority, next_attempt_at, created_at
             limit ${args.limit}
             for update skip locked) due
     where o.id = due.id
    returning o.*`.execute(db);
  // RETURNING has no order; deliver in queue order.
  return rows.sort(byQueueOrder);
}

export interface EmailContent {
  subject: string;
  html: string;
  /** The text part as prepared at send time; null for emails sent before it was stored. */
  text: string | null;
}

/**
 * The content of users' test sends, stored once on the email row for all its recipients
 * (docs/decisions/0038-one-outbox-row-per-recipient.md). Deleted emails whose deliveries are still
 * under way are kept (soft-deleted) until they settle, so every claimed row finds its content.
 */
export async function loadEmailContent(db: Db, emailIds: string[]): Promise<Map<string, EmailContent>> {
  if (emailIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('emails')
    .select(['id', 'subject', 'html', 'text_part'])
    .where('id', 'in', emailIds)
    .execute();
  return new Map(rows.map((r) => [r.id, { subject: r.subject, html: r.html, text: r.text_part }]));
}

/** Conditions every outcome write: only the holder of the lease may settle a row. */
const heldBy = (workerId: string) => sql<boolean>`state = 'sending' and locked_by = ${workerId}`;

/**
 * Whether the worker that held a row may have handed the message over: its attempt sent the final
 * "." (recorded before the dot, docs/decisions/0041-uncertain-means-maybe-twice.md), or PostgreSQL
 * restarted since the claim, which may have lost that record (it is written without waiting for
 * the disk flush). Rows claimed before migration 0009 have no claim time and count as maybe.
 */
const mayHaveBeenSent = sql<boolean>`(final_dot_at is not null or coalesce(claimed_at < pg_postmaster_start_time(), true))`;

/** After this many attempts whose outcome is unknown, a mail is `unconfirmed`, not retried again. */
export const MAX_UNCERTAIN_ATTEMPTS = 2;

/**
 * Records that these attempts are about to send their final "." (the message may be accepted from
 * then on). Written without waiting for the disk flush: a PostgreSQL crash that loses it also
 * restarts the postmaster, which `mayHaveBeenSent` accounts for. Returns the ids still held.
 */
export async function markFinalDot(db: Db, args: { workerId: string; ids: string[] }): Promise<Set<string>> {
  if (args.ids.length === 0) return new Set();
  const { rows } = await sql<{ id: string }>`
    with relaxed as (select set_config('synchronous_commit', 'off', true))
    update mail_outbox set final_dot_at = now()
      from relaxed
     where id = any(${args.ids}::uuid[]) and ${heldBy(args.workerId)}
    returning id`.execute(db);
  return new Set(rows.map((r) => r.id));
}

export interface SentOutcome {
  id: string;
  sentAt: Date;
}

/**
 * The update that records deliveries as sent, for a statement whose `relaxed` CTE has turned off
 * the flush wait. Only rows this worker still holds are touched; it returns their ids.
 */
const sentUpdate = (workerId: string, outcomes: SentOutcome[]) => sql<{ id: string }>`
  update mail_outbox o
     set state = 'sent', sent_at = v.sent_at, lease_until = null, last_error_code = null, last_error = null
    from relaxed,
         unnest(${outcomes.map((o) => o.id)}::uuid[], ${outcomes.map((o) => o.sentAt)}::timestamptz[])
         as v(id, sent_at)
   where o.id = v.id and ${heldBy(workerId)}
  returning o.id`;

/**
 * Records deliveries in one statement (the worker batches them, so a busy worker commits once per
 * batch, not once per mail). A sent row keeps locked_by: it names the worker that delivered it.
 * Returns the ids actually updated (a row whose lease was lost is not).
 */
export async function markSent(
  db: Db,
  args: { workerId: string; outcomes: SentOutcome[] },
): Promise<Set<string>> {
  if (args.outcomes.length === 0) return new Set();
  // No wait for the disk flush (synchronous_commit off for this one statement's transaction): if
  // PostgreSQL itself crashes and loses this commit, the rows are still 'sending' under a lease
  // that expires, and they are redelivered flagged uncertain (mayHaveBeenSent), which is the
  // promise anyway. Claims and enqueues stay fully durable.
  const { rows } = await sql<{ id: string }>`
    with relaxed as (select set_config('synchronous_commit', 'off', true))
    ${sentUpdate(args.workerId, args.outcomes)}`.execute(db);
  return new Set(rows.map((r) => r.id));
}

/**
 * markFinalDot and markSent in one statement (one round trip, one commit without the flush wait):
 * the worker records the final dots of the attempts about to send theirs together with the
 * deliveries that finished since the last write, instead of a statement for each. The two sets
 * are different rows (a row is recorded as sent only after its dot). Returns the ids of each that
 * this worker still held.
 */
export async function markFinalDotAndSent(
  db: Db,
  args: { workerId: string; dotIds: string[]; outcomes: SentOutcome[] },
): Promise<{ dots: Set<string>; sent: Set<string> }> {
  if (args.outcomes.length === 0)
    return { dots: await markFinalDot(db, { workerId: args.workerId, ids: args.dotIds }), sent: new Set() };
  const { rows } = await sql<{ id: string; dot: boolean }>`
    with relaxed as (select set_config('synchronous_commit', 'off', true)),
    dots as (
      update mail_outbox set final_dot_at = now()
        from relaxed
       where id = any(${args.dotIds}::uuid[]) and ${heldBy(args.workerId)}
      returning id),
    sent as (${sentUpdate(args.workerId, args.outcomes)})
    select id, true as dot from dots
    union all
    select id, false as dot from sent`.execute(db);
  const dots = new Set<string>();
  const sent = new Set<string>();
  for (const r of rows) (r.dot ? dots : sent).add(r.id);
  return { dots, sent };
}

export async function markRetry(
  db: Db,
  args: {
    id: string;
    workerId: string;
    nextAttemptAt: Date;
    code: number | null;
    text: string;
    uncertain: boolean;
  },
): Promise<boolean> {
  const res = await sql`
    update mail_outbox
       set state = 'retry_wait', next_attempt_at = ${args.nextAttemptAt}, lease_until = null, locked_by = null,
           last_error_code = ${args.code}, last_error = ${args.text}, uncertain = uncertain or ${args.uncertain},
           uncertain_attempts = uncertain_attempts + ${args.uncertain ? 1 : 0}
     where id = ${args.id} and ${heldBy(args.workerId)}`.execute(db);
  return Number(res.numAffectedRows ?? 0) > 0;
}

/** A second attempt whose outcome is unknown: no blind retry; it may or may not have arrived. */
export async function markUnconfirmed(
  db: Db,
  args: { id: string; workerId: string; code: number | null; text: string },
): Promise<boolean> {
  const res = await sql`
    update mail_outbox
       set state = 'unconfirmed', lease_until = null, locked_by = null,
           last_error_code = ${args.code}, last_error = ${args.text}, uncertain = true,
           uncertain_attempts = uncertain_attempts + 1
     where id = ${args.id} and ${heldBy(args.workerId)}`.execute(db);
  return Number(res.numAffectedRows ?? 0) > 0;
}

export async function markFailed(
  db: Db,
  args: { id: string; workerId: string; code: number | null; text: string; uncertain: boolean },
): Promise<boolean> {
  const res = await sql`
    update mail_outbox
       set state = 'failed', lease_until = null, locked_by = null,
           last_error_code = ${args.code}, last_error = ${args.text}, uncertain = uncertain or ${args.uncertain}
     where id = ${args.id} and ${heldBy(args.workerId)}`.execute(db);
  return Number(res.numAffectedRows ?? 0) > 0;
}

/** Keeps the leases of mails this worker is still delivering. */
export async function extendLeases(
  db: Db,
  args: { workerId: string; ids: string[]; leaseUntil: Date },
): Promise<void> {
  if (args.ids.length === 0) return;
  await sql`
    update mail_outbox set lease_until = ${args.leaseUntil}
     where id = any(${args.ids}::uuid[]) and ${heldBy(args.workerId)}`.execute(db);
}

/**
 * Hands rows back to the queue. `attempted: false` = claimed but never tried (the attempt is not
 * counted); `attempted: true` = stopped mid-delivery: flagged only if the message may have been
 * sent (its final "." was).
 */
export async function release(
  db: Db,
  args: { workerId: string; ids: string[]; attempted: boolean },
): Promise<number> {
  if (args.ids.length === 0) return 0;
  const res = args.attempted
    ? await sql`
        update mail_outbox
           set state = ${interruptedStateOr('queued')}, lease_until = null, locked_by = null,
               uncertain = uncertain or ${mayHaveBeenSent},
               uncertain_attempts = uncertain_attempts + case when ${mayHaveBeenSent} then 1 else 0 end,
               last_error = case when ${mayHaveBeenSent} then ${INTERRUPTED_AFTER_DOT} else last_error end
         where id = any(${args.ids}::uuid[]) and ${heldBy(args.workerId)}`.execute(db)
    : await sql`
        update mail_outbox
           set state = 'queued', lease_until = null, locked_by = null, attempts = greatest(attempts - 1, 0)
         where id = any(${args.ids}::uuid[]) and ${heldBy(args.workerId)}`.execute(db);
  return Number(res.numAffectedRows ?? 0);
}

const INTERRUPTED_AFTER_DOT =
  'The delivery was interrupted after the message was handed to the mail server, before it confirmed; it may have arrived';

function interruptedStateOr(otherwise: 'queued' | 'retry_wait') {
  return sql<string>`case when ${mayHaveBeenSent} and uncertain_attempts + 1 >= ${MAX_UNCERTAIN_ATTEMPTS}
                          then 'unconfirmed' else ${otherwise} end`;
}

/**
 * Rows whose worker stopped renewing its lease (it died or lost the database) go back to the
 * queue, flagged only if that worker may have handed the message over.
 */
export async function reclaimExpiredLeases(db: Db, args: { now: Date }): Promise<number> {
  const res = await sql`
    update mail_outbox
       set state = ${interruptedStateOr('retry_wait')}, next_attempt_at = ${args.now}, lease_until = null, locked_by = null,
           uncertain = uncertain or ${mayHaveBeenSent},
           uncertain_attempts = uncertain_attempts + case when ${mayHaveBeenSent} then 1 else 0 end,
           last_error = case when ${mayHaveBeenSent} then ${INTERRUPTED_AFTER_DOT} else last_error end
     where state = 'sending' and lease_until < ${args.now}`.execute(db);
  return Number(res.numAffectedRows ?? 0);
}

/** Mails still waiting past the maximum age fail, keeping the last reason they were held back. */
export async function expireOld(
  db: Db,
  args: { now: Date; maxAgeMs: number; label: string },
): Promise<number> {
  const cutoff = new Date(args.now.getTime() - args.maxAgeMs);
  const res = await sql`
    update mail_outbox
       set state = 'failed',
           last_error = ${`Not delivered within ${args.label}`}::text || coalesce('; last error: ' || last_error, '')
     where state in ('queued', 'retry_wait') and created_at < ${cutoff}`.execute(db);
  return Number(res.numAffectedRows ?? 0);
}
