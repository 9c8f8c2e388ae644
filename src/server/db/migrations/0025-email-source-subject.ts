import { sql, type Kysely } from 'kysely';

/**
 * The subject as written, when it differs from the subject sent (its merge tags filled, or left
 * empty and sent as "Test Email"): Edit and Resend starts from what was written, tags included, as
 * it does for the HTML (`source_html`). Null: the same as `subject`, and every email sent before.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table emails add column source_subject text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table emails drop column source_subject`.execute(db);
}
