import { sql, type Kysely } from 'kysely';

/**
 * The devices that had a login alert in the last gap (src/server/features/auth/auth.service.ts),
 * each with when: `{ "<hash of IP and browser>": "<ISO time>" }`. Migration 0024 kept only the
 * last device, so a sign-in back on the first device right after another's was mailed again; a
 * map holds the gap for each device. The column of 0024 goes: it was never more than the last
 * alert's device.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column login_alert_devices jsonb, drop column last_login_alert_device`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users drop column login_alert_devices, add column last_login_alert_device text`.execute(
    db,
  );
}
