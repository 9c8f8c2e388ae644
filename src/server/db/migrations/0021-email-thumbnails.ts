import { sql, type Kysely } from 'kysely';

/**
 * History thumbnails (docs/decisions/0090-stored-thumbnails.md): the top of an email as sent,
 * rendered once and kept beside it. An email's HTML as sent never changes (a new version is a new
 * email), so a stored thumbnail never goes stale. It goes when its email is deleted: with the row,
 * or at once when the row is only hidden while a delivery still reads it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('email_thumbnails')
    .addColumn('email_id', 'uuid', (c) => c.notNull().references('emails.id').onDelete('cascade'))
    .addColumn('mode', 'text', (c) => c.notNull().check(sql`mode in ('light', 'dark')`))
    .addColumn('png', 'bytea', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('email_thumbnails_pkey', ['email_id', 'mode'])
    .execute();
  await sql`
    create function emails_hidden_thumbnails() returns trigger language plpgsql as $$
    begin
      delete from email_thumbnails where email_id = new.id;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger emails_hidden_thumbnails after update of deleted_at on emails
      for each row when (new.deleted_at is not null and old.deleted_at is null)
      execute function emails_hidden_thumbnails()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger emails_hidden_thumbnails on emails`.execute(db);
  await sql`drop function emails_hidden_thumbnails()`.execute(db);
  await db.schema.dropTable('email_thumbnails').execute();
}
