import { sql, type Kysely } from 'kysely';

/**
 * Indexes the housekeeping job (src/server/housekeeping, docs/decisions/0023-housekeeping-job.md)
 * needs to find old rows without scanning whole tables. The other tables it trims were indexed on
 * the right column from the start (tokens, rate_limits, captcha_redemptions, caught_mail).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // send_rate's key starts with user_id; trimming asks for old minutes across all users.
  await sql`create index send_rate_minute on send_rate (minute)`.execute(db);
  // Sessions end by absolute expiry (sessions_expires) or by idleness (this one).
  await sql`create index sessions_last_seen on sessions (last_seen_at)`.execute(db);
  // Settled deliveries by age; queued and retrying rows are never trimmed.
  await sql`create index mail_outbox_settled on mail_outbox (created_at) where state in ('sent', 'failed')`.execute(
    db,
  );
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['mail_outbox_settled', 'sessions_last_seen', 'send_rate_minute']) {
    await sql`drop index if exists ${sql.ref(index)}`.execute(db);
  }
}
