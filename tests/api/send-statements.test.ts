import type { FastifyInstance } from 'fastify';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/server/app.ts';
import { ManualClock } from '../../src/server/clock.ts';
import { loadConfig } from '../../src/server/config.ts';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import type { Database } from '../../src/server/db/schema.ts';
import { monthOf, takeSend } from '../../src/server/features/email/usage.repo.ts';
import { injectWithPublicHost } from '../support/test-app.ts';
import { createTestDatabase } from '../support/test-db.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * A send reaches the database in two statements (docs/decisions/0071-send-in-two-statements.md):
 * both limits in one, the email, outbox and ledger rows in the other, atomic on its own.
 */
describe('the statements of a send', () => {
  let database: { url: string; drop: () => Promise<void> };
  let db: Db;
  let logged: Kysely<Database>;
  let statements: string[];
  let app: FastifyInstance;
  const clock = new ManualClock(new Date('2026-05-10T10:00:05Z'));

  beforeAll(async () => {
    database = await createTestDatabase();
    db = createDb(createPool(database.url, 3));
    statements = [];
    logged = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: createPool(database.url, 3) }),
      log: (event) => {
        if (event.level === 'query') statements.push(event.query.sql);
      },
    });
    const config = loadConfig({
      DATABASE_URL: database.url,
      LOG_LEVEL: 'warn',
      FREE_MONTHLY_LIMIT: '5',
      FREE_SENDS_PER_MINUTE: '2',
    });
    app = await buildApp({ config, db: logged, clock });
    injectWithPublicHost(app, config.publicUrl);
    await app.ready();
  });
  afterAll(async () => {
    await app?.close();
    await logged?.destroy();
    await db?.destroy();
    await database?.drop();
  });

  const send = (u: TestUser, to = 'a@example.com, b@example.com') =>
    app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: u.headers,
      payload: { to, html: '<style>p{color:red}</style><p>Hello</p>', inlineCss: true },
    });
  const counters = async (userId: string) => ({
    month: Number(
      (await db.selectFrom('usage_counters').select('count').where('user_id', '=', userId).executeTakeFirst())
        ?.count ?? 0,
    ),
    emails: (await db.selectFrom('emails').select('id').where('user_id', '=', userId).execute()).length,
    ledger: (await db.selectFrom('usage_ledger').select('id').where('user_id', '=', userId).execute()).length,
  });

  it('is two statements besides the session lookup: the limits, then every row', async () => {
    const u = await createUser(db, { now: clock.now() });
    statements.length = 0;
    const res = await send(u);
    expect(res.statusCode).toBe(200);
    const ofSend = statements.filter((s) => !/"sessions"/.test(s));
    expect(ofSend).toHaveLength(2);
    // The checklist's compatibility check scores the user's target clients: read with the limits.
    expect(ofSend[0]).toMatch(/send_rate[\s\S]*usage_counters[\s\S]*select target_clients from users/);
    expect(ofSend[1]).toMatch(
      /insert into "emails"[\s\S]*insert into "usage_ledger"[\s\S]*insert into "mail_outbox"/,
    );
    expect(statements.some((s) => /^(begin|commit)/i.test(s))).toBe(false);
    // Stored once: two outbox rows referencing the email, no copy of its content.
    const { id } = res.json<{ id: string }>();
    const outbox = await db
      .selectFrom('mail_outbox')
      .select(['email_id', 'html', 'subject', 'text'])
      .where('email_id', '=', id)
      .execute();
    expect(outbox).toEqual([
      { email_id: id, html: null, subject: null, text: null },
      { email_id: id, html: null, subject: null, text: null },
    ]);
    expect(await counters(u.user.id)).toEqual({ month: 1, emails: 1, ledger: 1 });
  });

  it('over the per-minute rate: 429, and nothing of the month taken', async () => {
    const u = await createUser(db, { now: clock.now() });
    expect((await send(u)).statusCode).toBe(200);
    expect((await send(u)).statusCode).toBe(200);
    const limited = await send(u);
    expect(limited.statusCode).toBe(429);
    expect(limited.json<{ code: string }>().code).toBe('send_rate_limited');
    expect(await counters(u.user.id)).toEqual({ month: 2, emails: 2, ledger: 2 });
  });

  it('a store that fails stores nothing and gives the monthly send back', async () => {
    const u = await createUser(db, { now: clock.now() });
    await sql`alter table usage_ledger add constraint refuse_for_test check (user_id <> ${sql.lit(u.user.id)}::uuid)`.execute(
      db,
    );
    try {
      const res = await send(u);
      expect(res.statusCode).toBeGreaterThanOrEqual(500);
    } finally {
      await sql`alter table usage_ledger drop constraint refuse_for_test`.execute(db);
    }
    expect(await counters(u.user.id)).toEqual({ month: 0, emails: 0, ledger: 0 });
    const outbox = await db
      .selectFrom('mail_outbox')
      .select('id')
      .where('reply_to', '=', u.user.email)
      .execute();
    expect(outbox).toHaveLength(0);
  });

  it('the limits statement leaves the pooled connection as it found it (durable commits)', async () => {
    const u = await createUser(db, { now: clock.now() });
    const one = createDb(createPool(database.url, 1));
    try {
      // The test cluster runs without durable commits; this one connection asks for them.
      await sql`set synchronous_commit = on`.execute(one);
      expect(
        await takeSend(one, {
          userId: u.user.id,
          month: monthOf(clock.now()),
          monthlyLimit: 5,
          minute: new Date('2026-05-10T10:00:00Z'),
          perMinute: 2,
        }),
      ).toEqual({ outcome: 'taken', targetClients: null });
      const { rows } = await sql<{ synchronous_commit: string }>`show synchronous_commit`.execute(one);
      expect(rows[0]!.synchronous_commit).toBe('on');
    } finally {
      await one.destroy();
    }
  });

  it('takeSend names the limit that refused, and reads the stored target clients', async () => {
    const u = await createUser(db, { now: clock.now() });
    await db
      .updateTable('users')
      .set({ target_clients: ['gmail-web', 'apple-mail-ios'] })
      .where('id', '=', u.user.id)
      .execute();
    const take = async (monthlyLimit: number, perMinute: number) => {
      const taken = await takeSend(db, {
        userId: u.user.id,
        month: '2026-05-01',
        monthlyLimit,
        minute: new Date('2026-05-10T10:01:00Z'),
        perMinute,
      });
      if (monthlyLimit > 0) expect(taken.targetClients).toEqual(['gmail-web', 'apple-mail-ios']);
      return taken.outcome;
    };
    expect(await take(1, 1)).toBe('taken');
    // The minute's send is taken first: the month refuses with it held (the caller gives it back).
    expect(await take(1, 5)).toBe('monthly');
    expect(await take(5, 2)).toBe('rate');
    // Over the rate with the month full: the month, the refusal a minute's wait does not lift.
    expect(await take(1, 2)).toBe('none');
    expect(await take(0, 5)).toBe('none');
  });
});
