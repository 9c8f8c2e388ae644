import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { FastifyReply } from 'fastify';
import type { Executor } from '../db/executor.ts';
import type { Database } from '../db/schema.ts';
import { tooManyRequests } from './errors.ts';

/**
 * Fixed-window counters kept in PostgreSQL (docs/architecture.md §5,
 * docs/decisions/0012-limits-atomic-in-postgres.md), so a limit holds across every app process.
 * Each hit is one atomic upsert that returns the new count; nothing is read-then-written.
 * Old windows are trimmed by the housekeeping job (src/server/housekeeping).
 */

export interface RateRule {
  /** Stable name; part of the counter key. */
  name: string;
  limit: number;
  windowMs: number;
  /** What the user reads, e.g. "Too many sign-in attempts. Try again in 3 minutes." */
  message: (wait: string) => string;
}

/** A rule whose message reads "Too many <what>. Try again in <wait>." */
export function rateRule(name: string, limit: number, windowMs: number, what: string): RateRule {
  return { name, limit, windowMs, message: (wait) => `Too many ${what}. Try again in ${wait}.` };
}

export interface RateHit {
  count: number;
  allowed: boolean;
  /** Milliseconds until the current window ends. */
  retryAfterMs: number;
}

function windowStart(rule: RateRule, now: Date): Date {
  return new Date(Math.floor(now.getTime() / rule.windowMs) * rule.windowMs);
}

/** Subjects such as email addresses are hashed, so the table holds no personal data. */
function counterKey(rule: RateRule, subject: string): string {
  const digest = createHash('sha256').update(subject).digest('base64url').slice(0, 32);
  return `${rule.name}:${digest}`;
}

/**
 * Counts one hit for `subject` under `rule` and says whether it is still within the limit.
 *
 * Its commit does not wait for the disk flush (`synchronous_commit` off for this statement's own
 * transaction, docs/decisions/0093-rate-counters-without-flush-wait.md): a crash of the machine can
 * forget the last fraction of a second of hits, never a row of anyone's data. So it takes the
 * database, never an open transaction, whose commit this would relax as well.
 */
export async function hitRateLimit(
  db: Kysely<Database>,
  rule: RateRule,
  subject: string,
  now: Date,
): Promise<RateHit> {
  const start = windowStart(rule, now);
  const { rows } = await sql<{ count: number }>`
    with no_flush_wait as (select set_config('synchronous_commit', 'off', true))
    insert into rate_limits (key, window_start, count)
    select ${counterKey(rule, subject)}, ${start}::timestamptz, 1 from no_flush_wait
    on conflict (key, window_start) do update set count = rate_limits.count + 1
    returning count`.execute(db);
  const row = rows[0]!;
  return {
    count: row.count,
    allowed: row.count <= rule.limit,
    retryAfterMs: start.getTime() + rule.windowMs - now.getTime(),
  };
}

/** Gives back one hit (e.g. a sign-in attempt that succeeded, so only failures count). */
export async function refundRateLimit(
  db: Executor,
  rule: RateRule,
  subject: string,
  now: Date,
): Promise<void> {
  await db
    .updateTable('rate_limits')
    .set({ count: sql`greatest(count - 1, 0)` })
    .where('key', '=', counterKey(rule, subject))
    .where('window_start', '=', windowStart(rule, now))
    .execute();
}

/** The Retry-After header's value: whole seconds, rounded up, at least 1. */
const retryAfterSeconds = (ms: number) => Math.max(1, Math.ceil(ms / 1000));

/**
 * "1 minute", "14 minutes": rounded up, never "0 minutes". A rule whose window is a minute or less
 * always waits less than a minute, so its wait is said in the seconds of the Retry-After header
 * ("45 seconds"), not as "1 minute" beside `Retry-After: 45`.
 */
export function describeWait(ms: number, windowMs?: number): string {
  if (windowMs !== undefined && windowMs <= 60_000) {
    const seconds = retryAfterSeconds(ms);
    return seconds === 1 ? '1 second' : `${seconds} seconds`;
  }
  const minutes = Math.max(1, Math.ceil(ms / 60_000));
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/**
 * Counts a hit on every (rule, subject) pair and, if any is over its limit, answers 429 with the
 * rule's message and a Retry-After header. Every counter is hit even when an earlier one is over,
 * so a blocked client keeps being counted.
 */
export async function enforceRateLimits(
  db: Kysely<Database>,
  reply: FastifyReply,
  checks: { rule: RateRule; subject: string }[],
  now: Date,
): Promise<void> {
  let blocked: { rule: RateRule; hit: RateHit } | undefined;
  for (const { rule, subject } of checks) {
    const hit = await hitRateLimit(db, rule, subject, now);
    if (!hit.allowed && (!blocked || hit.retryAfterMs > blocked.hit.retryAfterMs)) blocked = { rule, hit };
  }
  if (blocked) {
    const { rule, hit } = blocked;
    void reply.header('Retry-After', String(retryAfterSeconds(hit.retryAfterMs)));
    throw tooManyRequests(rule.message(describeWait(hit.retryAfterMs, rule.windowMs)));
  }
}

/** Gives back the hits of a request that turned out fine (only failures should count). */
export async function refundRateLimits(
  db: Executor,
  checks: { rule: RateRule; subject: string }[],
  now: Date,
): Promise<void> {
  for (const { rule, subject } of checks) await refundRateLimit(db, rule, subject, now);
}
