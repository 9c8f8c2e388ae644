import { sql, type Kysely } from 'kysely';

/**
 * History search's HTML index on the HTML's words instead of the HTML
 * (docs/decisions/0112-search-index-on-the-words.md, src/server/db/search-words.ts).
 *
 * - `search_words`: the distinct words of `html`. A send writes them (made in the transform
 *   process); a trigger fills them when an insert leaves them out (rows written outside a send,
 *   and the rows already there), splitting at ASCII characters other than letters and digits
 *   only. Those words are coarser than the sender's (which also split at non-ASCII punctuation),
 *   so each of the sender's words still lies inside one of them, and a search narrowed by them
 *   misses nothing.
 * - The trigram index moves from `html` to `search_words`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function emails_search_words(html text) returns text language sql immutable parallel safe as $$
      select coalesce(string_agg(word, ' '), '')
        from (select distinct word
                from regexp_split_to_table(html, '[\\x01-\\x2f\\x3a-\\x40\\x5b-\\x60\\x7b-\\x7f]+') as word
               where word <> '') as words
    $$`.execute(db);
  await sql`alter table emails add column search_words text`.execute(db);
  await sql`update emails set search_words = emails_search_words(html)`.execute(db);
  await sql`alter table emails alter column search_words set not null`.execute(db);
  await sql`
    create function emails_default_search_words() returns trigger language plpgsql as $$
    begin
      if new.search_words is null then
        new.search_words := emails_search_words(new.html);
      end if;
      return new;
    end $$`.execute(db);
  await sql`
    create trigger emails_default_search_words before insert on emails
      for each row execute function emails_default_search_words()`.execute(db);
  // Without pg_trgm (migration 0006) there was no index to move.
  const { rows } = await sql<{
    ok: boolean;
  }>`select exists (select 1 from pg_extension where extname = 'pg_trgm') as ok`.execute(db);
  if (!rows[0]?.ok) return;
  await sql`create index emails_words_trgm on emails using gin (search_words gin_trgm_ops)`.execute(db);
  await sql`drop index if exists emails_html_trgm`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  const { rows } = await sql<{
    ok: boolean;
  }>`select exists (select 1 from pg_extension where extname = 'pg_trgm') as ok`.execute(db);
  if (rows[0]?.ok) {
    await sql`create index if not exists emails_html_trgm on emails using gin (html gin_trgm_ops)`.execute(
      db,
    );
  }
  await sql`drop index if exists emails_words_trgm`.execute(db);
  await sql`drop trigger emails_default_search_words on emails`.execute(db);
  await sql`drop function emails_default_search_words()`.execute(db);
  await sql`alter table emails drop column search_words`.execute(db);
  await sql`drop function emails_search_words(text)`.execute(db);
}
