import { randomBytes } from 'node:crypto';
import { API_KEY_PREFIX } from '../../shared/contract/api-keys.ts';
import type { Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { ApiKeyResolver } from '../http/auth.ts';
import { findApiKeyByHash, touchApiKey } from './api-keys.repo.ts';
import { hashSecret } from './credentials.ts';

/**
 * Personal API keys (docs/decisions/0073-personal-api-keys.md): `pm_` and 256 random bits in
 * base64url. Only the SHA-256 is stored: the key is as random as a session token, so a fast hash
 * cannot be brute-forced, and a slow one (argon2) would cost every API request tens of
 * milliseconds and make the lookup by hash impossible.
 */

const KEY_SHAPE = /^pm_[A-Za-z0-9_-]{43}$/;
/** How much of the key the list shows: the prefix and 6 characters (36 of its 256 bits). */
const DISPLAY_LENGTH = API_KEY_PREFIX.length + 6;
/** last_used_at is written at most this often per key (not on every request). */
export const KEY_TOUCH_INTERVAL_MS = 60_000;

export function newApiKey(): { key: string; hash: Buffer; prefix: string } {
  const key = API_KEY_PREFIX + randomBytes(32).toString('base64url');
  return { key, hash: hashSecret(key), prefix: key.slice(0, DISPLAY_LENGTH) };
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_SHAPE.test(key);
}

/** The lookup the auth hook (src/server/http/auth.ts) makes for a `Bearer pm_…` header. */
export function createApiKeyResolver(deps: { db: Db; clock: Clock }): ApiKeyResolver {
  return {
    async resolve(key) {
      if (!isWellFormedApiKey(key)) return undefined; // malformed keys never reach the database
      const now = deps.clock.now();
      const found = await findApiKeyByHash(deps.db, hashSecret(key), now);
      if (!found) return undefined;
      if (!found.lastUsedAt || now.getTime() - found.lastUsedAt.getTime() >= KEY_TOUCH_INTERVAL_MS) {
        await touchApiKey(deps.db, found.keyId, now);
      }
      return { keyId: found.keyId, user: found.user };
    },
  };
}
