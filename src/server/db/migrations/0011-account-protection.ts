import { sql, type Kysely } from 'kysely';

/**
 * Account protection (docs/architecture.md §6):
 * - tokens may be `email_change_cancel`: the "this wasn't me" link mailed to the old address
 *   when an email change is requested (docs/decisions/0033-email-change-needs-password.md);
 * - sign_in_throttle: failed sign-ins per (account, client address) and when the next attempt
 *   may come, so guessing slows down for that pair only (docs/decisions/0034-sign-in-slowdown-and-known-devices.md);
 * - known_devices: browsers that signed in to an account (a cookie, stored as its SHA-256),
 *   whose correct password is never slowed down or refused by another client's failures.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table tokens drop constraint tokens_purpose_check`.execute(db);
  await sql`alter table tokens add constraint tokens_purpose_check
            check (purpose in ('verify', 'reset', 'change_email', 'oauth_ticket', 'email_change_cancel'))`.execute(
    db,
  );

  await db.schema
    .createTable('sign_in_throttle')
    // SHA-256 of the lower-cased address and the client address: no personal data in the table.
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('failures', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('sign_in_throttle_updated')
    .on('sign_in_throttle')
    .column('updated_at')
    .execute();

  await db.schema
    .createTable('known_devices')
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('device_hash', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_used_at', 'timestamptz', (c) => c.notNull())
    .addPrimaryKeyConstraint('known_devices_pk', ['user_id', 'device_hash'])
    .execute();
  await db.schema.createIndex('known_devices_last_used').on('known_devices').column('last_used_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('known_devices').execute();
  await db.schema.dropTable('sign_in_throttle').execute();
  await sql`delete from tokens where purpose = 'email_change_cancel'`.execute(db);
  await sql`alter table tokens drop constraint tokens_purpose_check`.execute(db);
  await sql`alter table tokens add constraint tokens_purpose_check
            check (purpose in ('verify', 'reset', 'change_email', 'oauth_ticket'))`.execute(db);
}
