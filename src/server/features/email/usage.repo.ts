import { sql } from 'kysely';
import type { Db } from '../../db/database.ts';
import type { Executor } from '../../db/executor.ts';

/** First day of the UTC calendar month of `at`, as a date string (docs/decisions/0014-usage-month-and-charging.md). */
export function monthOf(at: Date): string {
  return `${at.getUTCFullYear()}-${String(at.getUTCMonth() + 1).padStart(2, '0')}-01`;
}

/** When the allowance of the month of `at` starts over. */
export function nextMonthStart(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/**
 * Gives back a monthly send taken by `takeSend` for a send that then stored nothing (refused by
 * processing, or its transaction failed): the user is never charged for it.
 */
export async function releaseMonthlySend(db: Executor, userId: string, month: string): Promise<void> {
  await db
    .updateTable('usage_counters')
    .set((eb) => ({ count: eb('count', '-', 1) }))
    .where('user_id', '=', userId)
    .where('month', '=', sql<Date>`${month}::date`)
    .where('count', '>', 0)
    .execute();
}

/** Gives back the minute's send `takeSend` took for a send the monthly allowance then refused. */
export async function releaseRateSend(db: Executor, userId: string, minute: Date): Promise<void> {
  await db
    .updateTable('send_rate')
    .set((eb) => ({ count: eb('count', '-', 1) }))
    .where('user_id', '=', userId)
    .where('minute', '=', minute)
    .where('count', '>', 0)
    .execute();
}

/** What `takeSend` found: whether the send was taken, and the sender's stored target clients. */
export interface TakenSend {
  /**
   * `none`: the month refuses and nothing was taken: the allowance is zero, or the month is full
   * while the minute is too (the month is the refusal that will still hold in a minute).
   */
  outcome: 'taken' | 'monthly' | 'rate' | 'none';
  /**
   * `users.target_clients` as stored (null: the default set), read in the same statement so the
   * checklist costs no round trip of its own (src/server/checks/target-clients.ts `targetClientsOf`).
   */
  targetClients: string[] | null;
}

/**
 * Both send limits of `sendTestEmail` in ONE statement (docs/decisions/0071-send-in-two-statements.md):
 * one send of the minute's rate, then, only if that was taken, one of the month's allowance (past
 * minutes are trimmed by the housekeeping job, src/server/housekeeping). Each is a conditional
 * upsert: it locks the counter row, so concurrent sends (from any process) queue on it and the
 * limits hold exactly; the lock lasts this one statement. `rate`: over the minute's rate, nothing
 * taken. `monthly`: none left this month; the minute's send was taken and must be given back
 * (releaseRateSend). The rate comes first because a send refused for it then holds nothing: taken
 * the other way round, a burst's refused sends each held one of the month's sends until they gave
 * it back, and sends beside them heard "monthly limit reached" with sends left
 * (docs/decisions/0052-limits-before-work.md). The same statement reads the sender's target
 * clients, which the send's checklist scores.
 *
 * Call it outside any transaction: its commit does not wait for the disk (`synchronous_commit`
 * off for this statement's own transaction only). The store that follows is durable, and its WAL
 * flush carries these counters with it, since the log is flushed in order. A crash can lose only
 * the takes of sends that never stored anything, which are the ones to give back anyway.
 */
export async function takeSend(
  db: Executor,
  entry: { userId: string; month: string; monthlyLimit: number; minute: Date; perMinute: number },
): Promise<TakenSend> {
  // An allowance of none takes nothing (an insert would start the month's counter at one).
  if (entry.monthlyLimit <= 0) return { outcome: 'none', targetClients: null };
  const { rows } = await sql<{
    monthly: boolean;
    rate: boolean;
    month_full: boolean;
    target_clients: string[] | null;
  }>`
    with no_flush_wait as (select set_config('synchronous_commit', 'off', true)),
    rate as (
      insert into send_rate (user_id, minute, count) values (${entry.userId}, ${entry.minute}, 1)
      on conflict (user_id, minute) do update set count = send_rate.count + 1
        where send_rate.count < ${entry.perMinute}
      returning 1
    ), monthly as (
      insert into usage_counters (user_id, month, count)
      select ${entry.userId}::uuid, ${entry.month}::date, 1 from rate
      on conflict (user_id, month) do update set count = usage_counters.count + 1
        where usage_counters.count < ${entry.monthlyLimit}
      returning 1
    )
    select exists (select 1 from monthly) as monthly, exists (select 1 from rate) as rate,
      -- Read only for a send the rate refused (a CASE evaluates its sub-select only when reached).
      case when exists (select 1 from rate) then false
           else exists (select 1 from usage_counters u where u.user_id = ${entry.userId}
                         and u.month = ${entry.month}::date and u.count >= ${entry.monthlyLimit})
      end as month_full,
      exists (select 1 from no_flush_wait) as applied,
      (select target_clients from users where id = ${entry.userId}) as target_clients`.execute(db);
  const row = rows[0]!;
  return {
    outcome: !row.rate ? (row.month_full ? 'none' : 'rate') : !row.monthly ? 'monthly' : 'taken',
    targetClients: row.target_clients,
  };
}

/**
 * The ledger row of a send: one per send, whatever its number of recipients; it is refunded when
 * every recipient failed permanently (docs/decisions/0039-refund-when-every-recipient-failed.md).
 */
export function ledgerRow(entry: { userId: string; emailId: string; month: string }) {
  return { user_id: entry.userId, email_id: entry.emailId, month: entry.month };
}

export async function usageOf(
  db: Db,
  userId: string,
  month: string,
): Promise<{ thisMonth: number; total: number }> {
  const [counter, total] = await Promise.all([
    db
      .selectFrom('usage_counters')
      .select('count')
      .where('user_id', '=', userId)
      .where('month', '=', sql<Date>`${month}::date`)
      .executeTakeFirst(),
    db
      .selectFrom('usage_ledger')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('user_id', '=', userId)
      .where('refunded_at', 'is', null)
      .executeTakeFirstOrThrow(),
  ]);
  return { thisMonth: counter?.count ?? 0, total: Number(total.n) };
}
