import { sql, type Kysely } from 'kysely';

/**
 * The pre-send checklist (docs/decisions/0063-pre-send-checklist.md):
 * - `emails.checks`: the checklist computed on the message as it was sent (static checks and
 *   spam), `[{ id, title, status, findings }]`; null on emails sent before this migration;
 * - `users.target_clients`: the client ids the compatibility check scores for this user; null
 *   means the default set (src/shared/contract/checks.ts DEFAULT_TARGET_CLIENTS).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table emails add column checks jsonb`.execute(db);
  await sql`alter table users add column target_clients text[]`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table users drop column target_clients`.execute(db);
  await sql`alter table emails drop column checks`.execute(db);
}
