import { sql, type Kysely } from 'kysely';

/**
 * Sharing follows the thread, and clients review it without an account
 * (docs/decisions/0083-share-per-thread.md, docs/decisions/0085-reviews-throttled-and-notified.md).
 *
 * - `email_shares`: one public link per thread (every version of an email), with its settings:
 *   expiry, a viewing password (argon2id, as account passwords), `viewer_secret` (random, signs
 *   the viewer tokens of a protected link, renewed on a password change and a rotation, so both
 *   end every unlock: docs/decisions/0084-viewer-tokens.md), and the view count. Revoking deletes
 *   the row; rotating gives it a new slug.
 * - `email_reviews`: what reviewers said about a version of a thread, owned by the thread's
 *   owner. Keyed on the thread and the version number, not the email row, so a review outlives
 *   the deletion of one version.
 * - `users.review_notifications`: mail the owner each decision (on by default).
 * - The links of `emails.public_slug` / `shared_at` move here, and those columns go.
 * - When the last live version of a thread is deleted (or hidden while a delivery still reads it),
 *   a trigger deletes the thread's share and reviews.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('email_shares')
    .addColumn('thread_id', 'uuid', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('slug', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz')
    .addColumn('password_hash', 'text')
    .addColumn('viewer_secret', 'bytea', (c) =>
      c.notNull().defaultTo(sql`uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())`),
    )
    .addColumn('views', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_viewed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('email_shares_user').on('email_shares').column('user_id').execute();

  await db.schema
    .createTable('email_reviews')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('thread_id', 'uuid', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull().check(sql`version >= 1`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('decision', 'text', (c) =>
      c.notNull().check(sql`decision in ('approved', 'changes_requested', 'comment')`),
    )
    .addColumn('comment', 'text')
    .addColumn('pin_x', 'double precision')
    .addColumn('pin_y', 'double precision')
    .addColumn('pin_width', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('email_reviews_thread')
    .on('email_reviews')
    .columns(['thread_id', 'created_at'])
    .execute();

  await sql`alter table users add column review_notifications boolean not null default true`.execute(db);

  await sql`
    insert into email_shares (thread_id, user_id, slug, created_at)
    select thread_id, user_id, public_slug, coalesce(shared_at, created_at)
      from emails
     where public_slug is not null and deleted_at is null
    on conflict do nothing`.execute(db);
  await sql`alter table emails drop column public_slug, drop column shared_at`.execute(db);

  await sql`
    create function emails_thread_gone() returns trigger language plpgsql as $$
    begin
      if not exists (select 1 from emails where thread_id = old.thread_id and deleted_at is null) then
        delete from email_shares where thread_id = old.thread_id;
        delete from email_reviews where thread_id = old.thread_id;
      end if;
      return null;
    end $$`.execute(db);
  await sql`
    create trigger emails_thread_gone after delete or update of deleted_at on emails
      for each row execute function emails_thread_gone()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger emails_thread_gone on emails`.execute(db);
  await sql`drop function emails_thread_gone()`.execute(db);
  await sql`alter table emails add column public_slug text unique, add column shared_at timestamptz`.execute(
    db,
  );
  await sql`
    update emails e set public_slug = s.slug, shared_at = s.created_at
      from email_shares s
     where e.thread_id = s.thread_id
       and e.version = (select max(version) from emails x where x.thread_id = s.thread_id and x.deleted_at is null)`.execute(
    db,
  );
  await sql`alter table users drop column review_notifications`.execute(db);
  await db.schema.dropTable('email_reviews').execute();
  await db.schema.dropTable('email_shares').execute();
}
