import { sql, type Kysely } from 'kysely';

/**
 * Billing (docs/architecture.md §5): the Stripe webhook events already applied. An event id is
 * inserted in the same transaction as the event's effect, so a delivery that is retried,
 * duplicated or raced by a concurrent copy changes nothing the second time. The user's
 * subscription fields live on `users` (migration 0004).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('stripe_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('customer_id', 'text')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('stripe_events_received').on('stripe_events').column('received_at').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('stripe_events').execute();
}
