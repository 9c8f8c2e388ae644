import type { Executor } from '../db/executor.ts';
import { badRequest } from '../http/errors.ts';
import {
  DEFAULT_TARGET_CLIENTS,
  TARGET_CLIENT_IDS,
  type TargetClientId,
} from '../../shared/contract/checks.ts';

/**
 * A user's target clients: what the compatibility check scores for them (migration 0012). Shared
 * by the email feature (preview and send read it) and the user feature (the setting).
 */

const KNOWN = new Set<string>(TARGET_CLIENT_IDS);

/**
 * The known ids among the stored ones (`users.target_clients`), in the catalogue's order; the
 * default when none is set. For a caller that read the column itself (the send reads it with its
 * limits, src/server/features/email/usage.repo.ts).
 */
export function targetClientsOf(ids: readonly string[] | null): TargetClientId[] {
  if (ids === null) return [...DEFAULT_TARGET_CLIENTS];
  return TARGET_CLIENT_IDS.filter((id) => ids.includes(id));
}

export async function loadTargetClients(db: Executor, userId: string): Promise<TargetClientId[]> {
  const row = await db
    .selectFrom('users')
    .select('target_clients')
    .where('id', '=', userId)
    .executeTakeFirst();
  return targetClientsOf(row?.target_clients ?? null);
}

/** Checks a requested set: at least one, every id known (a 400 names the first unknown one). */
export function validateTargetClients(ids: readonly string[]): TargetClientId[] {
  const unknown = ids.find((id) => !KNOWN.has(id));
  if (unknown !== undefined)
    throw badRequest(
      `Unknown target client "${unknown.slice(0, 100)}". Known clients: ${TARGET_CLIENT_IDS.join(', ')}.`,
      'unknown_target_client',
    );
  if (ids.length === 0) throw badRequest('Choose at least one target client.', 'no_target_clients');
  return targetClientsOf(ids);
}

export async function saveTargetClients(
  db: Executor,
  userId: string,
  ids: TargetClientId[],
  now: Date,
): Promise<TargetClientId[]> {
  const row = await db
    .updateTable('users')
    .set({ target_clients: ids, updated_at: now })
    .where('id', '=', userId)
    .returning('target_clients')
    .executeTakeFirstOrThrow();
  return targetClientsOf(row.target_clients);
}
