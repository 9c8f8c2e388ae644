import { sql, type Kysely } from 'kysely';

/**
 * Mail caught by the local SMTP catcher (no SMTP_URL): what /dev/mailbox shows. Development
 * data only; the catcher keeps the newest few hundred messages.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('caught_mail')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('message_id', 'text')
    .addColumn('envelope_from', 'text')
    .addColumn('from_header', 'text', (c) => c.notNull())
    .addColumn('to_addresses', sql`text[]`, (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('html', 'text')
    .addColumn('text', 'text')
    .addColumn('headers', 'jsonb', (c) => c.notNull())
    .addColumn('size', 'integer', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`create index caught_mail_received on caught_mail (received_at desc, id desc)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('caught_mail').execute();
}
