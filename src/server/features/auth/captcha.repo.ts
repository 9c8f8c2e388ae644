import { randomBytes } from 'node:crypto';
import type { Executor } from '../../db/executor.ts';

const HMAC_KEY = 'altcha_hmac_key';

/**
 * The captcha signing key: generated once per installation and kept in app_meta, so every app
 * process signs and verifies with the same key (the first process to start wins the insert).
 */
export async function loadOrCreateCaptchaKey(db: Executor): Promise<string> {
  await db
    .insertInto('app_meta')
    .values({ key: HMAC_KEY, value: randomBytes(32).toString('base64url') })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db
    .selectFrom('app_meta')
    .select('value')
    .where('key', '=', HMAC_KEY)
    .executeTakeFirstOrThrow();
  return row.value;
}

/** Records a solved challenge; false when it was already redeemed (a replay). */
export async function redeemChallenge(db: Executor, challengeId: string, expiresAt: Date): Promise<boolean> {
  const row = await db
    .insertInto('captcha_redemptions')
    .values({ challenge_id: challengeId, expires_at: expiresAt })
    .onConflict((oc) => oc.column('challenge_id').doNothing())
    .returning('challenge_id')
    .executeTakeFirst();
  return row !== undefined;
}
