import type { Executor } from '../../db/executor.ts';

/**
 * known_devices: browsers that signed in to an account with its password, by the SHA-256 of
 * their device cookie (docs/decisions/0034-sign-in-slowdown-and-known-devices.md).
 */

export async function isKnownDevice(db: Executor, userId: string, deviceHash: Buffer): Promise<boolean> {
  const row = await db
    .selectFrom('known_devices')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('device_hash', '=', deviceHash)
    .executeTakeFirst();
  return row !== undefined;
}

export async function rememberDevice(
  db: Executor,
  userId: string,
  deviceHash: Buffer,
  now: Date,
): Promise<void> {
  await db
    .insertInto('known_devices')
    .values({ user_id: userId, device_hash: deviceHash, created_at: now, last_used_at: now })
    .onConflict((oc) => oc.columns(['user_id', 'device_hash']).doUpdateSet({ last_used_at: now }))
    .execute();
}
