import { sql, type Kysely } from 'kysely';

/**
 * The device of the last login alert (a hash of its IP and browser, src/server/features/auth/auth.service.ts):
 * the alerts' 10-minute gap holds for sign-ins from the same device only, so that a sign-in from
 * another device right after the owner's is still reported. Null: no alert since this column came.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users add column last_login_alert_device text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users drop column last_login_alert_device`.execute(db);
}
