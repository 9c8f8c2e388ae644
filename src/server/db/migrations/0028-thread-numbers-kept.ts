import { sql, type Kysely } from 'kysely';

/**
 * A purged version's number is never given again (docs/decisions/0078-next-version-in-the-send-statement.md,
 * amended 2026-11-28). The next version is numbered from the thread's rows and reviews; once a
 * deleted version's row was purged its number came free, and a public link's `?v=2` that a client
 * had seen (and discussed) showed a different email. `email_thread_numbers` keeps the highest
 * number each thread has had while any of its versions remains: a statement-level trigger records
 * the numbers a delete takes away, and drops the record of a thread with no version left (no new
 * version can join it then: a send's `parentId` names a live email).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table email_thread_numbers (
      thread_id uuid primary key,
      last_version integer not null
    )`.execute(db);
  await sql`
    create function emails_keep_thread_numbers() returns trigger language plpgsql as $$
    begin
      insert into email_thread_numbers (thread_id, last_version)
        select g.thread_id, max(g.version) from gone g
         where exists (select 1 from emails e where e.thread_id = g.thread_id)
         group by g.thread_id
      on conflict (thread_id) do update
        set last_version = greatest(email_thread_numbers.last_version, excluded.last_version);
      delete from email_thread_numbers n
       where n.thread_id in (select g.thread_id from gone g)
         and not exists (select 1 from emails e where e.thread_id = n.thread_id);
      return null;
    end $$`.execute(db);
  await sql`
    create trigger emails_keep_thread_numbers after delete on emails
      referencing old table as gone for each statement
      execute function emails_keep_thread_numbers()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger emails_keep_thread_numbers on emails`.execute(db);
  await sql`drop function emails_keep_thread_numbers()`.execute(db);
  await sql`drop table email_thread_numbers`.execute(db);
}
