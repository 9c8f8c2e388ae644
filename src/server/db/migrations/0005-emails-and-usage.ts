import { sql, type Kysely } from 'kysely';

/**
 * Sent emails and usage (docs/architecture.md §5, docs/decisions/0014-usage-month-and-charging.md):
 * - emails: what the user sent, as sent (after inlining); delivery state lives on its outbox row.
 * - usage_counters: one row per user and UTC month; the send transaction increments it only while
 *   under the limit (INSERT … ON CONFLICT … DO UPDATE … WHERE count < limit), which holds exactly
 *   across concurrent requests and processes because the row lock serialises them.
 * - usage_ledger: one row per accepted send. Deleting an email keeps its ledger row (no refund);
 *   a mail that fails permanently is refunded by the trigger below, in the same transaction that
 *   marks it failed.
 * - send_rate: per-user, per-minute counters for the per-minute send rate.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('emails')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('to_addresses', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('html', 'text', (c) => c.notNull())
    .addColumn('inline_css', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('public_slug', 'text', (c) => c.unique())
    .addColumn('shared_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Newest-first keyset pagination per user.
  await sql`create index emails_user_created on emails (user_id, created_at desc, id desc)`.execute(db);

  await db.schema
    .createTable('usage_counters')
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('month', 'date', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull().check(sql`count >= 0`))
    .addPrimaryKeyConstraint('usage_counters_pk', ['user_id', 'month'])
    .execute();

  await db.schema
    .createTable('usage_ledger')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email_id', 'uuid', (c) => c.references('emails.id').onDelete('set null'))
    .addColumn('outbox_id', 'uuid', (c) => c.notNull().unique())
    .addColumn('month', 'date', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('refunded_at', 'timestamptz')
    .execute();
  await sql`create index usage_ledger_user on usage_ledger (user_id) where refunded_at is null`.execute(db);

  await db.schema
    .createTable('send_rate')
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('minute', 'timestamptz', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('send_rate_pk', ['user_id', 'minute'])
    .execute();

  // A permanently failed delivery is not charged (docs/decisions/0014-usage-month-and-charging.md,
  // docs/decisions/0005-refund-by-trigger.md).
  await sql`
    create function refund_failed_send() returns trigger language plpgsql as $$
    declare
      charged record;
    begin
      update usage_ledger set refunded_at = now()
        where outbox_id = new.id and refunded_at is null
        returning user_id, month into charged;
      if found then
        update usage_counters set count = count - 1
          where user_id = charged.user_id and month = charged.month and count > 0;
      end if;
      return new;
    end $$`.execute(db);
  await sql`
    create trigger mail_outbox_refund_failed
      after update of state on mail_outbox
      for each row when (new.state = 'failed' and old.state is distinct from 'failed')
      execute function refund_failed_send()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger if exists mail_outbox_refund_failed on mail_outbox`.execute(db);
  await sql`drop function if exists refund_failed_send()`.execute(db);
  for (const t of ['send_rate', 'usage_ledger', 'usage_counters', 'emails'])
    await db.schema.dropTable(t).execute();
}
