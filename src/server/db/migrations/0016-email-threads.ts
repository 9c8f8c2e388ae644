import { sql, type Kysely } from 'kysely';

/**
 * Versions of one email (docs/decisions/0076-versions-are-rows-of-a-thread.md): every sent email
 * is one version of a thread.
 *
 * - `thread_id`: the id of the thread's first version. Not a foreign key, so a thread outlives the
 *   deletion of its first version. A trigger fills it with the row's own id when an insert leaves
 *   it out, so every email sent without a parent starts its own thread (and existing rows are
 *   their own threads, version 1).
 * - `version`: 1, 2, 3… within the thread, unique; the writer of a next version computes it and
 *   the unique index settles two racing sends.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table emails
      add column thread_id uuid,
      add column version integer not null default 1 check (version >= 1)`.execute(db);
  await sql`update emails set thread_id = id`.execute(db);
  await sql`alter table emails alter column thread_id set not null`.execute(db);
  await sql`
    create function emails_default_thread() returns trigger language plpgsql as $$
    begin
      if new.thread_id is null then
        new.thread_id := new.id;
      end if;
      return new;
    end $$`.execute(db);
  await sql`
    create trigger emails_default_thread before insert on emails
      for each row execute function emails_default_thread()`.execute(db);
  await sql`create unique index emails_thread_version on emails (thread_id, version)`.execute(db);
  await sql`create index emails_user_thread on emails (user_id, thread_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger emails_default_thread on emails`.execute(db);
  await sql`drop function emails_default_thread()`.execute(db);
  await sql`alter table emails drop column thread_id, drop column version`.execute(db);
}
