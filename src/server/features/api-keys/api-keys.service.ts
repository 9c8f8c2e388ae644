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
import { newApiKey } from '../../accounts/api-keys.ts';
import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { isUuid } from '../../db/uuid.ts';
import { AppError, badRequest, notFound } from '../../http/errors.ts';

/** Creating, listing and revoking the signed-in user's API keys (docs/decisions/0073-personal-api-keys.md). */

type Deps = { db: Db; clock: Clock };

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    createdAt: row.createdAt.toISOString(),
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  };
}

export function validateKeyName(raw: string): string {
  const name = raw.trim();
  if (!name) throw badRequest(API_KEY_MESSAGES.nameRequired, 'invalid_name');
  if (name.length > MAX_KEY_NAME_LENGTH) throw badRequest(API_KEY_MESSAGES.nameTooLong, 'invalid_name');
  return name;
}

export async function createApiKey(
  deps: Deps,
  userId: string,
  rawName: string,
): Promise<CreateApiKeyResponse> {
  const name = validateKeyName(rawName);
  return deps.db.transaction().execute(async (trx) => {
    // One creation at a time per user, so two at once cannot both pass the cap.
    await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute();
    if ((await countApiKeys(trx, userId)) >= MAX_API_KEYS) {
      throw new AppError(409, API_KEY_MESSAGES.tooMany, 'too_many_api_keys');
    }
    const { key, hash, prefix } = newApiKey();
    const row = await insertApiKey(trx, { userId, name, keyHash: hash, prefix, now: deps.clock.now() });
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
