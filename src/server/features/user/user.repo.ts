import type { Executor } from '../../db/executor.ts';

/** SQL of the signed-in user's own settings. */

export async function setLoginAlerts(
  db: Executor,
  userId: string,
  enabled: boolean,
  now: Date,
): Promise<boolean> {
  const row = await db
    .updateTable('users')
    .set({ login_alerts: enabled, updated_at: now })
    .where('id', '=', userId)
    .returning('login_alerts')
    .executeTakeFirstOrThrow();
  return row.login_alerts;
}
