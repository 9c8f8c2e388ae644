import { createHash } from 'node:crypto';
import { hashSecret, isWellFormedToken } from '../../accounts/credentials.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { AppError } from '../../http/errors.ts';
import { hitRateLimit, refundRateLimits, describeWait, type RateRule } from '../../http/rate-limit.ts';
import { isKnownDevice } from './known-devices.repo.ts';
import { RATE_RULES } from './rate-rules.ts';
import {
  claimAttempt,
  clearPairFailures,
  nextAttemptAt,
  type ThrottleSchedule,
} from './sign-in-throttle.repo.ts';

/**
 * How sign-in resists guessing without letting anyone lock the owner out
 * (docs/decisions/0034-sign-in-slowdown-and-known-devices.md):
 *
 * - A browser that signed in to the account before (its device cookie is known) is never slowed
 *   down by anyone else's failures: only its own failed attempts count, per device.
 * - Anyone else is slowed down per (account, client address) pair: 5 failures cost nothing, then
 *   each failure doubles the wait before the next attempt (2 s, 4 s, … up to 15 minutes). Another
 *   client's failures never slow this one down.
 * - Anyone else is also held to the per-address and per-account ceilings of RATE_RULES
 *   (spraying many accounts from one address; guessing one account from very many addresses).
 *
 * Every attempt is counted before the password is checked; a success gives it back.
 */

export const PAIR_SCHEDULE: ThrottleSchedule = {
  freeAttempts: 5,
  maxDelayMs: 15 * 60_000,
  forgetAfterMs: 24 * 3600_000,
};

/** The device cookie's value, when it is one we could have issued. */
export function deviceHashOf(deviceKey: string | undefined): Buffer | undefined {
  return deviceKey && isWellFormedToken(deviceKey) ? hashSecret(deviceKey) : undefined;
}

function pairKey(email: string, ip: string): string {
  return createHash('sha256').update(`${email.toLowerCase()}\n${ip}`).digest('base64url');
}

function waitMessage(ms: number): string {
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  const wait = seconds < 60 ? `${seconds} second${seconds === 1 ? '' : 's'}` : describeWait(ms);
  return `Too many failed sign-ins. Try again in ${wait}.`;
}

export interface SignInAttempt {
  /** The password was right: give the attempt back. */
  succeeded(): Promise<void>;
}

/**
 * Lets one sign-in attempt through, or throws 429 (with Retry-After) naming the wait. `userId` is
 * the account the email belongs to, if any: an unknown email is throttled exactly like a known
 * one, so the answers say nothing about which addresses have accounts.
 */
export async function admitSignInAttempt(
  deps: FeatureDeps,
  attempt: { email: string; ip: string; userId: string | undefined; deviceHash: Buffer | undefined },
): Promise<SignInAttempt> {
  const now = deps.clock.now();
  const { db } = deps;
  const known =
    attempt.userId !== undefined &&
    attempt.deviceHash !== undefined &&
    (await isKnownDevice(db, attempt.userId, attempt.deviceHash));

  const checks: { rule: RateRule; subject: string }[] = known
    ? [
        {
          rule: RATE_RULES.signInPerDevice,
          subject: `${attempt.userId}:${attempt.deviceHash!.toString('base64url')}`,
        },
      ]
    : [
        { rule: RATE_RULES.signInPerIp, subject: attempt.ip },
        { rule: RATE_RULES.signInPerAccount, subject: attempt.email.toLowerCase() },
      ];
  // The pair first: an attempt it refuses checks no password and costs no other counter, so
  // one client hammering one account cannot use up that account's ceiling.
  const pair = known ? undefined : pairKey(attempt.email, attempt.ip);
  if (pair && !(await claimAttempt(db, pair, now, PAIR_SCHEDULE))) {
    const next = await nextAttemptAt(db, pair);
    const pairWaitMs = Math.max(1000, (next?.getTime() ?? now.getTime()) - now.getTime());
    throw new AppError(429, waitMessage(pairWaitMs), 'rate_limited', pairWaitMs / 1000);
  }
  let waitMs = 0;
  let limited: RateRule | undefined;
  for (const { rule, subject } of checks) {
    const hit = await hitRateLimit(db, rule, subject, now);
    if (!hit.allowed && hit.retryAfterMs > waitMs) {
      waitMs = hit.retryAfterMs;
      limited = rule;
    }
  }
  if (limited) throw new AppError(429, limited.message(describeWait(waitMs)), 'rate_limited', waitMs / 1000);

  return {
    async succeeded() {
      await refundRateLimits(db, checks, now);
      if (pair) await clearPairFailures(db, pair);
    },
  };
}
