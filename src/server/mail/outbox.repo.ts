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
 * without waiting on each other or taking the same row.
 */
export async function claimDue(
  db: Db,
  args: { workerId: string; limit: number; now: Date; leaseUntil: Date },
): Promise<OutboxRow[]> {
  const { rows } = await sql<OutboxRow>`
    update mail_outbox o
       set state = 'sending', attempts = o.attempts + 1, lease_until = ${args.leaseUntil}, locked_by = ${args.workerId}
      from (select id from mail_outbox
             where state in ('queued', 'retry_wait')
               -- our clock has milliseconds, PostgreSQL's now() microseconds: a mail enqueued in
               -- the same millisecond as this claim is due, not 0.4 ms in the future
               and next_attempt_at < ${args.now}::timestamptz + interval '1 millisecond'
             order by priority, next_attempt_at, created_at
             limit ${args.limit}
             for update skip locked) due
     where o.id = due.id
    returning o.*`.execute(db);
  // RETURNING has no order; deliver in queue order.
  return rows.sort(byQueueOrder);
}

/** Conditions every outcome write: only the holder of the lease may settle a row. */
const heldBy = (workerId: string) => sql<boolean>`state = 'sending' and locked_by = ${workerId}`;

export interface SentOutcome {
  id: string;
  sentAt: Date;
  /** Set when the server refused some (not all) recipients. */
  note: { code: number | null; text: string } | null;
}

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
  // that expires, and they are redelivered flagged uncertain, which is the promise anyway.
  // Claims and enqueues stay fully durable.
  const { rows } = await sql<{ id: string }>`
    with relaxed as (select set_config('synchronous_commit', 'off', true))
    update mail_outbox o
       set state = 'sent', sent_at = v.sent_at, lease_until = null, last_error_code = v.code, last_error = v.note
      from relaxed,
           unnest(${args.outcomes.map((o) => o.id)}::uuid[], ${args.outcomes.map((o) => o.sentAt)}::timestamptz[],
                  ${args.outcomes.map((o) => o.note?.code ?? null)}::int[], ${args.outcomes.map((o) => o.note?.text ?? null)}::text[])
           as v(id, sent_at, code, note)
     where o.id = v.id and o.state = 'sending' and o.locked_by = ${args.workerId}
    returning o.id`.execute(db);
  return new Set(rows.map((r) => r.id));
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
           last_error_code = ${args.code}, last_error = ${args.text}, uncertain = uncertain or ${args.uncertain}
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
 * counted); `attempted: true` = stopped mid-delivery, so the outcome is unknown and the row is
 * flagged.
 */
export async function release(
  db: Db,
  args: { workerId: string; ids: string[]; attempted: boolean },
): Promise<number> {
  if (args.ids.length === 0) return 0;
  const res = await sql`
    update mail_outbox
       set state = 'queued', lease_until = null, locked_by = null,
           attempts = case when ${args.attempted}::boolean then attempts else greatest(attempts - 1, 0) end,
           uncertain = uncertain or ${args.attempted}
     where id = any(${args.ids}::uuid[]) and ${heldBy(args.workerId)}`.execute(db);
  return Number(res.numAffectedRows ?? 0);
}

/**
 * Rows whose worker stopped renewing its lease (it died or lost the database) go back to the
 * queue. The dead worker may have handed the mail to the server already, so they are flagged.
 */
export async function reclaimExpiredLeases(db: Db, args: { now: Date }): Promise<number> {
  const res = await sql`
    update mail_outbox
       set state = 'retry_wait', next_attempt_at = ${args.now}, lease_until = null, locked_by = null,
           uncertain = true,
           last_error = 'The delivery attempt was interrupted (the worker stopped); the outcome is unknown'
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
