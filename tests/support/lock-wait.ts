import { sql } from 'kysely';
import type { Db } from '../../src/server/db/database.ts';
import type { Executor } from '../../src/server/db/executor.ts';
import { poll } from './poll.ts';

/**
 * Plays a race in a chosen order, for tests of what a lock serialises: in one transaction, `hold`
 * takes a lock; `start` sends the requests that will wait for it; once `waiters` backends wait on
 * this transaction, `meanwhile` runs (in it, or as requests of its own) and the transaction commits.
 * Returns what `start` returned, which settles after the commit. Nothing sleeps: the wait is for
 * PostgreSQL to report the requests blocked (pg_blocking_pids).
 */
export async function whileWaiting<T>(
  db: Db,
  steps: {
    hold: (trx: Executor) => Promise<unknown>;
    start: () => Promise<T>;
    meanwhile: (trx: Executor) => Promise<unknown>;
    waiters?: number;
  },
): Promise<T> {
  let started: Promise<T> | undefined;
  try {
    await db.transaction().execute(async (trx) => {
      await steps.hold(trx);
      const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
      const holder = rows[0]!.pid;
      started = steps.start();
      started.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
      const waiters = steps.waiters ?? 1;
      await poll(
        async () => {
          const blocked = await sql<{ n: number }>`
            select count(*)::int as n from pg_stat_activity
             where ${holder}::int = any(pg_blocking_pids(pid))`.execute(db);
          return blocked.rows[0]!.n >= waiters;
        },
        { what: `${waiters} request(s) waiting on the held lock` },
      );
      await steps.meanwhile(trx);
    });
  } finally {
    if (started) await started.catch(() => undefined);
  }
  return started!;
}

/**
 * Holds password sign-ins just after they read the account's password hash: a sign-in writes
 * sign_in_throttle (its attempt is counted, src/server/features/auth/sign-in-throttle.ts) after
 * that read and before the password is checked, and nothing else writes that table.
 */
export async function holdSignIns(trx: Executor): Promise<void> {
  await sql`lock table sign_in_throttle in share mode`.execute(trx);
}

/** Holds everything that writes or locks the user's row, or inserts a row that references it. */
export async function holdUserRow(trx: Executor, userId: string): Promise<void> {
  await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
}
