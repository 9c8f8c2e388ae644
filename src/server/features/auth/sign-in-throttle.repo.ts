import { sql } from 'kysely';
import type { Executor } from '../../db/executor.ts';

/**
 * sign_in_throttle: failed sign-ins per (account, client address) and when the next attempt may
 * come (docs/decisions/0034-sign-in-slowdown-and-known-devices.md). Keys are SHA-256 digests.
 */

export interface ThrottleSchedule {
  /** Attempts allowed back to back before waits start. */
  freeAttempts: number;
  /** The wait after each further failure doubles from 2 s up to this. */
  maxDelayMs: number;
  /** A pair that has not failed for this long starts again from zero. */
  forgetAfterMs: number;
}

/**
 * Takes one attempt for `key`, counted as a failure until clearPairFailures says otherwise, in
 * one statement: it succeeds only when the pair's wait has passed (or it has none), so parallel
 * attempts cannot slip past a wait. Returns false when the pair must still wait.
 */
export async function claimAttempt(
  db: Executor,
  key: string,
  now: Date,
  schedule: ThrottleSchedule,
): Promise<boolean> {
  const forgetBefore = new Date(now.getTime() - schedule.forgetAfterMs);
  const failures = sql<number>`case when sign_in_throttle.updated_at < ${forgetBefore} then 1
                                    else sign_in_throttle.failures + 1 end`;
  const waitAfter = (n: unknown) =>
    sql<Date>`${now}::timestamptz + least(
      ${schedule.maxDelayMs}::bigint,
      case when ${n} <= ${schedule.freeAttempts} then 0
           else (2000 * power(2, least(${n} - ${schedule.freeAttempts} - 1, 30)))::bigint end
    ) * interval '1 millisecond'`;
  const row = await db
    .insertInto('sign_in_throttle')
    .values({ key, failures: 1, next_attempt_at: waitAfter(sql`1`), updated_at: now })
    .onConflict((oc) =>
      oc
        .column('key')
        .doUpdateSet({ failures, next_attempt_at: waitAfter(failures), updated_at: now })
        .where((eb) =>
          eb.or([
            eb('sign_in_throttle.next_attempt_at', '<=', now),
            eb('sign_in_throttle.updated_at', '<', forgetBefore),
          ]),
        ),
    )
    .returning('failures')
    .executeTakeFirst();
  return row !== undefined;
}

/** When the pair may try again (after claimAttempt said no). */
export async function nextAttemptAt(db: Executor, key: string): Promise<Date | undefined> {
  const row = await db
    .selectFrom('sign_in_throttle')
    .select('next_attempt_at')
    .where('key', '=', key)
    .executeTakeFirst();
  return row?.next_attempt_at;
}

/** A successful sign-in: the pair starts again from zero. */
export async function clearPairFailures(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('sign_in_throttle').where('key', '=', key).execute();
}
