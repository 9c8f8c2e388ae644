import { sql } from 'kysely';
import { systemClock, type Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { TRIM_RULES, type TrimRule } from './trim-rules.ts';

/**
 * The housekeeping job (docs/decisions/0023-housekeeping-job.md): every few minutes, one process
 * at a time (a PostgreSQL advisory lock) deletes what TRIM_RULES says is old, in batches of a few
 * hundred rows, each its own short statement, so it never holds many row locks or blocks a request
 * for long. Runs in the app process and in `npm run worker`; whichever gets the lock does the work.
 */

/** 'pm-house' in ASCII: the advisory lock only one housekeeping run at a time holds. */
export const HOUSEKEEPING_LOCK = 8101181231279207269n;

const HOUSEKEEPING_DEFAULTS = {
  intervalMs: 10 * 60_000,
  /** The first run waits a little, so startup (migrations, workers) goes first. */
  firstRunAfterMs: 60_000,
  batchSize: 500,
  /** At most this many batches per table and run; what is left waits for the next run. */
  maxBatches: 200,
};

export interface HousekeepingResult {
  /** False when another process was running it (it held the lock). */
  ran: boolean;
  /** Rows deleted per table (tables with none are left out). */
  trimmed: Partial<Record<TrimRule['table'], number>>;
}

export interface HousekeepingRunOptions {
  batchSize?: number;
  maxBatches?: number;
  /** Checked between batches: a stopping process does not start another. */
  stopping?: () => boolean;
}

/** One run: every rule, batch by batch, under the advisory lock. */
export async function runHousekeeping(
  db: Db,
  now: Date,
  options: HousekeepingRunOptions = {},
): Promise<HousekeepingResult> {
  const batchSize = options.batchSize ?? HOUSEKEEPING_DEFAULTS.batchSize;
  const maxBatches = options.maxBatches ?? HOUSEKEEPING_DEFAULTS.maxBatches;
  const stopping = options.stopping ?? (() => false);
  // A session-level lock lives on one connection: take it, work and release it on that one.
  return db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`
      select pg_try_advisory_lock(${HOUSEKEEPING_LOCK.toString()}::bigint) as locked`.execute(conn);
    if (!rows[0]?.locked) return { ran: false, trimmed: {} };
    try {
      const trimmed: HousekeepingResult['trimmed'] = {};
      for (const rule of TRIM_RULES) {
        let total = 0;
        for (let batch = 0; batch < maxBatches && !stopping(); batch++) {
          const result = await sql`
            delete from ${sql.table(rule.table)}
             where ctid = any(array(${rule.batch(now, batchSize)}))`.execute(conn);
          const deleted = Number(result.numAffectedRows ?? 0);
          total += deleted;
          if (deleted < batchSize) break;
        }
        if (total > 0) trimmed[rule.table] = total;
      }
      return { ran: true, trimmed };
    } finally {
      await sql`select pg_advisory_unlock(${HOUSEKEEPING_LOCK.toString()}::bigint)`.execute(conn);
    }
  });
}

/** "12 send_rate, 3 sessions": what a run deleted, for the log. */
function describeTrimmed(trimmed: HousekeepingResult['trimmed']): string {
  return Object.entries(trimmed)
    .map(([table, n]) => `${n} ${table}`)
    .join(', ');
}

export interface HousekeepingOptions extends Omit<HousekeepingRunOptions, 'stopping'> {
  db: Db;
  clock?: Clock;
  log: (level: 'info' | 'warn' | 'error', message: string) => void;
  intervalMs?: number;
  firstRunAfterMs?: number;
}

export interface Housekeeping {
  /** Cancels the next run and waits for a running one to finish its current batch. */
  stop(): Promise<void>;
}

/** Runs housekeeping now and then until stopped; runs never overlap (the next is planned after one ends). */
export function startHousekeeping(options: HousekeepingOptions): Housekeeping {
  const clock = options.clock ?? systemClock;
  const intervalMs = options.intervalMs ?? HOUSEKEEPING_DEFAULTS.intervalMs;
  let stopped = false;
  let running: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;

  const runOnce = async () => {
    const started = Date.now();
    try {
      const result = await runHousekeeping(options.db, clock.now(), {
        batchSize: options.batchSize,
        maxBatches: options.maxBatches,
        stopping: () => stopped,
      });
      if (Object.keys(result.trimmed).length > 0) {
        options.log(
          'info',
          `housekeeping: trimmed ${describeTrimmed(result.trimmed)} (${Date.now() - started} ms)`,
        );
      }
    } catch (err) {
      options.log('error', `housekeeping failed: ${(err as Error).message}`);
    }
  };
  const schedule = (delayMs: number) => {
    if (stopped) return;
    timer = setTimeout(() => {
      running = runOnce().finally(() => {
        running = undefined;
        schedule(intervalMs);
      });
    }, delayMs);
    timer.unref();
  };
  schedule(options.firstRunAfterMs ?? HOUSEKEEPING_DEFAULTS.firstRunAfterMs);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
