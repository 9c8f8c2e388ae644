import { createChallenge, randomInt, verifySolution, type Challenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import { createHmac } from 'node:crypto';
import { z } from 'zod';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { loadOrCreateCaptchaKey, redeemChallenge } from './captcha.repo.ts';

/**
 * ALTCHA, self-hosted proof of work (altcha-lib v2, the format the altcha 3 widget speaks).
 *
 * Deterministic mode: the server picks a secret counter in [max/5, CAPTCHA_MAX_NUMBER] and
 * publishes the first half of SHA-256(salt ‖ nonce ‖ counter); the browser must count up to it,
 * so CAPTCHA_MAX_NUMBER sets the work. The challenge is HMAC-signed (untamperable, stateless),
 * expires after 10 minutes, and each one can be redeemed once (captcha_redemptions).
 */

const ALGORITHM = 'SHA-256';
export const CHALLENGE_TTL_MS = 10 * 60_000;

interface Secrets {
  signature: string;
  keySignature: string;
}

const secretsByDb = new WeakMap<Db, Promise<Secrets>>();

function secrets(db: Db): Promise<Secrets> {
  let found = secretsByDb.get(db);
  if (!found) {
    found = loadOrCreateCaptchaKey(db).then((key) => ({
      signature: key,
      // A second, independent key for the derived-key signature (altcha's recommendation).
      keySignature: createHmac('sha256', key).update('altcha-key-signature').digest('base64url'),
    }));
    found.catch(() => secretsByDb.delete(db)); // retry on the next call after a database hiccup
    secretsByDb.set(db, found);
  }
  return found;
}

interface CaptchaDeps {
  config: Config;
  db: Db;
  clock: Clock;
}

export async function createCaptchaChallenge(deps: CaptchaDeps): Promise<Challenge> {
  const { signature, keySignature } = await secrets(deps.db);
  const max = deps.config.captcha.maxNumber;
  return createChallenge({
    algorithm: ALGORITHM,
    cost: 1,
    counter: randomInt(max, Math.max(1, Math.floor(max / 5))),
    deriveKey,
    expiresAt: new Date(deps.clock.now().getTime() + CHALLENGE_TTL_MS),
    hmacSignatureSecret: signature,
    hmacKeySignatureSecret: keySignature,
  });
}

// The widget's payload: base64 of JSON { challenge: { parameters, signature }, solution }.
// Parameters are passed through untouched: the signature covers exactly what was issued.
const payloadSchema = z.object({
  challenge: z.object({
    parameters: z.looseObject({
      algorithm: z.literal(ALGORITHM),
      nonce: z.string().regex(/^[0-9a-f]{2,128}$/),
      salt: z.string(),
      cost: z.number(),
      keyLength: z.number(),
      keyPrefix: z.string(),
      expiresAt: z.number(),
    }),
    signature: z.string().max(256),
  }),
  solution: z.object({
    counter: z.number().int().nonnegative(),
    derivedKey: z.string().max(256),
  }),
});

function decode(token: string): z.infer<typeof payloadSchema> | undefined {
  try {
    const parsed = payloadSchema.safeParse(JSON.parse(Buffer.from(token, 'base64').toString('utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when the token is a correct, unexpired solution of a challenge we issued and that was not
 * redeemed before. Redeems it. Missing, malformed, forged, expired and replayed tokens are false.
 */
export async function redeemCaptcha(deps: CaptchaDeps, token: string | undefined): Promise<boolean> {
  if (!token) return false;
  const payload = decode(token);
  if (!payload) return false;
  const { parameters } = payload.challenge;
  const expiresAtMs = parameters.expiresAt * 1000;
  if (expiresAtMs <= deps.clock.now().getTime()) return false;
  const { signature, keySignature } = await secrets(deps.db);
  try {
    const result = await verifySolution({
      challenge: payload.challenge as Challenge,
      solution: payload.solution,
      deriveKey,
      hmacSignatureSecret: signature,
      hmacKeySignatureSecret: keySignature,
    });
    if (!result.verified) return false;
  } catch {
    return false;
  }
  return redeemChallenge(deps.db, parameters.nonce, new Date(expiresAtMs));
}
