import { sql, type Kysely } from 'kysely';

/**
 * Accounts (docs/architecture.md §5, §6): users, social identities, sessions, one-time tokens, and the
 * PostgreSQL-backed counters behind the auth rate limits and captcha replay protection.
 * Secrets are stored only as SHA-256 hashes (bytea); the raw values live in the user's hands.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('email', 'text', (c) => c.notNull().check(sql`length(email) between 3 and 254`))
    // Null for social-only accounts.
    .addColumn('password_hash', 'text')
    .addColumn('verified_at', 'timestamptz')
    .addColumn('plan', 'text', (c) =>
      c
        .notNull()
        .defaultTo('free')
        .check(sql`plan in ('free', 'pro')`),
    )
    .addColumn('subscription_status', 'text', (c) =>
      c
        .notNull()
        .defaultTo('none')
        .check(sql`subscription_status in ('none', 'active', 'trialing', 'past_due', 'canceled', 'unpaid')`),
    )
    .addColumn('stripe_customer_id', 'text')
    .addColumn('stripe_subscription_id', 'text')
    .addColumn('current_period_end', 'timestamptz')
    .addColumn('cancel_at_period_end', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('login_alerts', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('last_login_alert_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  // Case-insensitive uniqueness without the citext extension; lookups use lower(email) too.
  await sql`create unique index users_email_lower on users (lower(email))`.execute(db);
  await sql`create unique index users_stripe_customer on users (stripe_customer_id)
            where stripe_customer_id is not null`.execute(db);
  await sql`create unique index users_stripe_subscription on users (stripe_subscription_id)
            where stripe_subscription_id is not null`.execute(db);

  await db.schema
    .createTable('oauth_accounts')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('provider', 'text', (c) => c.notNull().check(sql`provider in ('google', 'github')`))
    .addColumn('provider_user_id', 'text', (c) => c.notNull())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('email', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('oauth_accounts_identity', ['provider', 'provider_user_id'])
    .execute();
  await db.schema.createIndex('oauth_accounts_user').on('oauth_accounts').column('user_id').execute();

  await db.schema
    .createTable('sessions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', 'bytea', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('user_agent', 'text')
    .execute();
  await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();

  await db.schema
    .createTable('tokens')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('hash', 'bytea', (c) => c.notNull().unique())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('purpose', 'text', (c) =>
      c.notNull().check(sql`purpose in ('verify', 'reset', 'change_email', 'oauth_ticket')`),
    )
    .addColumn('payload', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute();
  await sql`create index tokens_user_open on tokens (user_id, purpose) where used_at is null`.execute(db);
  await db.schema.createIndex('tokens_expires').on('tokens').column('expires_at').execute();

  // Fixed-window counters: one row per (rule:subject, window); incremented with an upsert.
  await db.schema
    .createTable('rate_limits')
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('window_start', 'timestamptz', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('rate_limits_pk', ['key', 'window_start'])
    .execute();
  await db.schema.createIndex('rate_limits_window').on('rate_limits').column('window_start').execute();

  // Captcha challenges already redeemed (replay protection), kept until the challenge expires.
  await db.schema
    .createTable('captcha_redemptions')
    .addColumn('challenge_id', 'text', (c) => c.primaryKey())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('captcha_redemptions_expires')
    .on('captcha_redemptions')
    .column('expires_at')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['captcha_redemptions', 'rate_limits', 'tokens', 'sessions', 'oauth_accounts', 'users']) {
    await db.schema.dropTable(t).execute();
  }
}
