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
 * Takes one send from the month's allowance if one is left. The conditional upsert locks the
 * counter row, so concurrent sends (from any process) queue on it and the limit holds exactly.
 * Returns false when the limit is reached.
 */
export async function takeMonthlySend(
  trx: Executor,
  userId: string,
  month: string,
  limit: number,
): Promise<boolean> {
  if (limit <= 0) return false;
  const row = await sql<{ count: number }>`
    insert into usage_counters (user_id, month, count) values (${userId}, ${month}, 1)
    on conflict (user_id, month) do update set count = usage_counters.count + 1
      where usage_counters.count < ${limit}
    returning count`.execute(trx);
  return row.rows.length > 0;
}

/**
 * Gives back a send taken by `takeMonthlySend` for a send that then stored nothing (refused by
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

/**
 * Per-minute send rate, enforced the same way as the monthly allowance. Past minutes are trimmed
 * by the housekeeping job (src/server/housekeeping).
 */
export async function takeMinuteSend(
  trx: Executor,
  userId: string,
  minute: Date,
  limit: number,
): Promise<boolean> {
  const row = await sql<{ count: number }>`
    insert into send_rate (user_id, minute, count) values (${userId}, ${minute}, 1)
    on conflict (user_id, minute) do update set count = send_rate.count + 1
      where send_rate.count < ${limit}
    returning count`.execute(trx);
  return row.rows.length > 0;
}

/**
 * One ledger row per send, whatever its number of recipients; it is refunded when every recipient
 * failed permanently (docs/decisions/0039-refund-when-every-recipient-failed.md).
 */
export async function recordSend(
  trx: Executor,
  entry: { userId: string; emailId: string; month: string },
): Promise<void> {
  await trx
    .insertInto('usage_ledger')
    .values({ user_id: entry.userId, email_id: entry.emailId, month: entry.month })
    .execute();
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
