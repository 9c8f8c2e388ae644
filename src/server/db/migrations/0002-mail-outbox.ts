import { sql, type Kysely } from 'kysely';

/**
 * The durable outbox (docs/architecture.md §5, docs/decisions/0003-database-is-the-queue.md): one
 * row per outgoing mail; its delivery state lives on the row.
 * priority: 0 system, 1 pro, 2 free (lower goes first).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('mail_outbox')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('priority', 'smallint', (c) => c.notNull().check(sql`priority between 0 and 2`))
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('queued')
        .check(sql`state in ('queued', 'sending', 'sent', 'retry_wait', 'failed')`),
    )
    .addColumn('message_id', 'text', (c) => c.notNull().unique())
    .addColumn('to_addresses', sql`text[]`, (c) => c.notNull())
    .addColumn('reply_to', 'text')
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('html', 'text', (c) => c.notNull())
    .addColumn('text', 'text')
    .addColumn('email_id', 'uuid')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('lease_until', 'timestamptz')
    .addColumn('locked_by', 'text')
    .addColumn('uncertain', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('last_error_code', 'integer')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('sent_at', 'timestamptz')
    .execute();
  // What a worker claims next: due rows by priority, then age.
  await sql`create index mail_outbox_due on mail_outbox (priority, next_attempt_at, created_at)
            where state in ('queued', 'retry_wait')`.execute(db);
  // Leases to reclaim after a worker died.
  await sql`create index mail_outbox_leased on mail_outbox (lease_until) where state = 'sending'`.execute(db);
  await sql`create index mail_outbox_email on mail_outbox (email_id) where email_id is not null`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('mail_outbox').execute();
}
