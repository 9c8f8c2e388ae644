import { sql, type Kysely } from 'kysely';

/**
 * The length a link's expiry was set for (1, 7 or 30 days), kept beside the moment it ends so the
 * share dialog shows the owner's choice again. Null: the link never expires, or its expiry was set
 * before lengths were kept (the dialog then shows only the date).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table email_shares
      add column expires_in_days smallint
        constraint email_shares_expires_in_days_check check (expires_in_days in (1, 7, 30)),
      add constraint email_shares_expiry_length_check check (expires_in_days is null or expires_at is not null)`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table email_shares drop constraint email_shares_expiry_length_check, drop column expires_in_days`.execute(
    db,
  );
}
