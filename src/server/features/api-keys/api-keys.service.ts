import {
  API_KEY_MESSAGES,
  MAX_API_KEYS,
  MAX_KEY_NAME_LENGTH,
  type ApiKey,
  type CreateApiKeyResponse,
} from '../../../shared/contract/api-keys.ts';
import {
  countApiKeys,
  deleteApiKey,
  insertApiKey,
  listApiKeys,
  type ApiKeyRow,
} from '../../accounts/api-keys.repo.ts';
import { queueAccountMail } from '../../accounts/account-mail.ts';
import { newApiKey } from '../../accounts/api-keys.ts';
import type { AccountUser } from '../../accounts/users.repo.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { isUuid } from '../../db/uuid.ts';
import { AppError, badRequest, forbidden, notFound } from '../../http/errors.ts';
import { apiKeyCreatedMail } from '../../mail/templates.ts';

/** Creating, listing and revoking the signed-in user's API keys (docs/decisions/0073-personal-api-keys.md). */

type Deps = { db: Db; clock: Clock; config: Config };

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}

/**
 * Control characters (line breaks among them) and the marks that reorder text: a name with them
 * could make the notice mail read as something else ("deploy\r\nThis key was created by you"),
 * or print the rest of its sentence backwards (U+202E).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_IN_NAME = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

export function validateKeyName(raw: string): string {
  const name = raw.trim();
  if (!name) throw badRequest(API_KEY_MESSAGES.nameRequired, 'invalid_name');
  if (name.length > MAX_KEY_NAME_LENGTH) throw badRequest(API_KEY_MESSAGES.nameTooLong, 'invalid_name');
  if (UNSAFE_IN_NAME.test(name)) throw badRequest(API_KEY_MESSAGES.nameCharacters, 'invalid_name');
  return name;
}

/**
 * A new key for a verified account (whoever holds a never-verified one has not proved the address
 * is theirs), with a notice to the owner's address in the same transaction: a key made with a
 * stolen session is seen.
 */
export async function createApiKey(
  deps: Deps,
  auth: { user: Pick<AccountUser, 'id' | 'email' | 'verified'>; sessionId: string },
  rawName: string,
): Promise<CreateApiKeyResponse> {
  const { user } = auth;
  const name = validateKeyName(rawName);
  if (!user.verified) throw forbidden(API_KEY_MESSAGES.verifyFirst, 'email_unverified');
  const userId = user.id;
  return deps.db.transaction().execute(async (trx) => {
    // One creation at a time per user, so two at once cannot both pass the cap. A password reset
    // or "this wasn't me" takes the same row lock (it writes the user), so it is either before
    // this, and the session is gone by now, or after it, and revokes the key made here.
    await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
    // The session was read when the request began; a body sent slowly may arrive after it ended.
    const session = await trx
      .selectFrom('sessions')
      .select('id')
      .where('id', '=', auth.sessionId)
      .where('user_id', '=', userId)
      .executeTakeFirst();
    if (!session) throw new AppError(401, 'Not authenticated', 'unauthenticated');
    if ((await countApiKeys(trx, userId)) >= MAX_API_KEYS) {
      throw new AppError(409, API_KEY_MESSAGES.tooMany, 'too_many_api_keys');
    }
    const { key, hash, prefix } = newApiKey();
    const now = deps.clock.now();
    const row = await insertApiKey(trx, { userId, name, keyHash: hash, prefix, now });
    await queueAccountMail(
      trx,
      deps.config,
      user.email,
      apiKeyCreatedMail({ publicUrl: deps.config.publicUrl, name, prefix, time: now }),
    );
    return { id: row.id, name: row.name, key, prefix: row.prefix, createdAt: row.createdAt.toISOString() };
  });
}

export async function listKeys(deps: Deps, userId: string): Promise<ApiKey[]> {
  return (await listApiKeys(deps.db, userId)).map(toApiKey);
}

/** Another user's key answers the same 404 as a missing one. */
export async function revokeApiKey(deps: Deps, userId: string, id: string): Promise<void> {
  if (!isUuid(id) || !(await deleteApiKey(deps.db, userId, id))) {
    throw notFound(API_KEY_MESSAGES.notFound, 'api_key_not_found');
  }
}
