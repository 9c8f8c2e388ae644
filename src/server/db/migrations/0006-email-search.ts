import { sql, type Kysely } from 'kysely';

/**
 * Trigram indexes behind history search (ILIKE '%q%' on recipient, subject and HTML).
 * pg_trgm is a trusted extension (PostgreSQL ≥ 13), so a database owner can create it. If the
 * role may not, search still works (sequential scan per user) and the notice says why it is slow.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    do $$
    begin
      create extension if not exists pg_trgm;
    exception when insufficient_privilege then
      raise notice 'pg_trgm could not be created (insufficient privilege): history search will not be indexed';
    end $$`.execute(db);
  const { rows } = await sql<{
    ok: boolean;
  }>`select exists (select 1 from pg_extension where extname = 'pg_trgm') as ok`.execute(db);
  if (!rows[0]?.ok) return;
  await sql`create index emails_to_trgm on emails using gin (to_addresses gin_trgm_ops)`.execute(db);
  await sql`create index emails_subject_trgm on emails using gin (subject gin_trgm_ops)`.execute(db);
  await sql`create index emails_html_trgm on emails using gin (html gin_trgm_ops)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const name of ['emails_to_trgm', 'emails_subject_trgm', 'emails_html_trgm']) {
    await sql`drop index if exists ${sql.ref(name)}`.execute(db);
  }
}
