import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool } from '../../src/server/db/database.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/server/db/embedded-postgres.ts';
import { migrateToLatest } from '../../src/server/db/migrate.ts';
import { runAdmin } from '../support/child-process.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { signUp } from '../support/auth-api.ts';
import { createUser, uniqueEmail } from '../support/users.ts';

// Each test starts the CLI (a Node process compiling TypeScript) one to four times.
describe('admin CLI against DATABASE_URL', { timeout: 120_000 }, () => {
  let ctx: TestContext;
  let env: Record<string, string>;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'none' } });
    env = { DATABASE_URL: ctx.databaseUrl };
  });
  afterAll(async () => ctx?.close());

  const userRow = (id: string) =>
    ctx.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  it('set-plan EMAIL pro|free changes the plan (email in any case)', async () => {
    const account = await signUp(ctx);
    const pro = await runAdmin(['set-plan', account.email.toUpperCase(), 'pro'], env);
    expect(pro.code, pro.stderr).toBe(0);
    expect(pro.stdout.trim()).toBe(`The plan of ${account.email} is now pro.`);
    expect((await userRow(account.userId)).plan).toBe('pro');
    const free = await runAdmin(['set-plan', account.email, 'free'], env);
    expect(free.code).toBe(0);
    expect((await userRow(account.userId)).plan).toBe('free');
  });

  it('set-plan EMAIL pro over a Stripe subscription cancelled at its period end grants Pro, ended or not', async () => {
    const DAY = 86_400_000;
    for (const [tense, offset] of [
      ['ended', -DAY],
      ['ends', 3600_000],
    ] as const) {
      const u = await createUser(ctx.db, { plan: 'pro' });
      const end = new Date(Date.now() + offset);
      // What billing stored: Stripe still says active, cancelled at the end of the period.
      await ctx.db
        .updateTable('users')
        .set({
          stripe_customer_id: `cus_${u.user.id}`,
          stripe_subscription_id: `sub_${u.user.id}`,
          cancel_at_period_end: true,
          current_period_end: end,
        })
        .where('id', '=', u.user.id)
        .execute();
      const plan = async () =>
        (await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: u.headers })).json().user.plan;
      expect(await plan()).toBe(tense === 'ended' ? 'free' : 'pro');

      const run = await runAdmin(['set-plan', u.user.email, 'pro'], env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout.trim().split('\n')).toEqual([
        `The plan of ${u.user.email} is now pro.`,
        `Its Stripe subscription was cancelled and ${tense} on ${end.toISOString().slice(0, 10)}; Pro is granted now and does not end with it.`,
      ]);
      expect(await plan(), tense).toBe('pro');
      const start = ctx.clock.now();
      try {
        ctx.clock.set(new Date(end.getTime() + DAY)); // past the period end
        expect(await plan(), tense).toBe('pro');
      } finally {
        ctx.clock.set(start);
      }
      expect(await userRow(u.user.id)).toMatchObject({
        plan: 'pro',
        subscription_status: 'canceled',
        cancel_at_period_end: false,
      });
    }
  });

  it('verify EMAIL marks the address verified, once', async () => {
    const account = await signUp(ctx);
    const first = await runAdmin(['verify', account.email], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim()).toBe(`${account.email} is now verified.`);
    expect((await userRow(account.userId)).verified_at).not.toBeNull();
    const second = await runAdmin(['verify', account.email], env);
    expect(second.code).toBe(0);
    expect(second.stdout.trim()).toBe(`${account.email} was already verified.`);
  });

  it('delete-account EMAIL --yes deletes the account and everything in it; without --yes, nothing', async () => {
    const owner = await createUser(ctx.db, { email: uniqueEmail('leaving'), plan: 'free' });
    const other = await createUser(ctx.db);
    const sent = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: owner.headers,
      payload: { to: 'client@example.com', subject: 'Mine', html: '<p>Mine</p>' },
    });
    expect(sent.statusCode, sent.body).toBe(200);
    const id = sent.json().id as string;
    await ctx.db.updateTable('users').set({ plan: 'pro' }).where('id', '=', owner.user.id).execute();
    const share = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/${id}/share`,
      headers: owner.headers,
    });
    const slug = share.json().email.publicSlug as string;
    await ctx.db.updateTable('users').set({ plan: 'free' }).where('id', '=', owner.user.id).execute();
    const key = await ctx.app.inject({
      method: 'POST',
      url: '/api/keys',
      headers: owner.headers,
      payload: { name: 'CI' },
    });
    expect(key.statusCode, key.body).toBe(200);
    const counts = async () => ({
      users: (await ctx.db.selectFrom('users').select('id').where('id', '=', owner.user.id).execute()).length,
      emails: (await ctx.db.selectFrom('emails').select('id').where('user_id', '=', owner.user.id).execute())
        .length,
      outbox: (await ctx.db.selectFrom('mail_outbox').select('id').where('email_id', '=', id).execute())
        .length,
      keys: (await ctx.db.selectFrom('api_keys').select('id').where('user_id', '=', owner.user.id).execute())
        .length,
      shares: (await ctx.db.selectFrom('email_shares').select('slug').where('slug', '=', slug).execute())
        .length,
    });
    expect(await counts()).toEqual({ users: 1, emails: 1, outbox: 1, keys: 1, shares: 1 });
    // What the local catcher kept: the send (by its message id), a mail to the owner, another's.
    const outboxRow = await ctx.db
      .selectFrom('mail_outbox')
      .select('message_id')
      .where('email_id', '=', id)
      .executeTakeFirstOrThrow();
    const caught = (messageId: string, to: string, subject: string) => ({
      message_id: messageId,
      envelope_from: null,
      from_header: 'Proofmail <no-reply@localhost>',
      to_addresses: [to],
      subject,
      html: null,
      text: subject,
      headers: '[]',
      size: 10,
    });
    await ctx.db
      .insertInto('caught_mail')
      .values([
        caught(outboxRow.message_id, 'client@example.com', 'Mine'),
        caught('<verify@localhost>', owner.user.email, 'Verify your email'),
        caught('<other@localhost>', other.user.email, 'Not theirs'),
      ])
      .execute();
    const caughtSubjects = async () =>
      (
        await ctx.db
          .selectFrom('caught_mail')
          .select('subject')
          .where('subject', 'in', ['Mine', 'Verify your email', 'Not theirs'])
          .execute()
      )
        .map((r) => r.subject)
        .sort();

    const asked = await runAdmin(['delete-account', owner.user.email], env);
    expect(asked.code).toBe(2);
    expect(asked.stdout.trim()).toBe(
      `This deletes ${owner.user.email} and everything in it, for good. Run it again with --yes to do so.`,
    );
    expect(await counts()).toEqual({ users: 1, emails: 1, outbox: 1, keys: 1, shares: 1 });

    const done = await runAdmin(['delete-account', owner.user.email, '--yes'], env);
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout.trim()).toBe(
      `Deleted ${owner.user.email}: 1 email and everything else in the account.`,
    );
    expect(await counts()).toEqual({ users: 0, emails: 0, outbox: 0, keys: 0, shares: 0 });
    expect(await caughtSubjects()).toEqual(['Not theirs']);
    const page = await ctx.app.inject({ method: 'GET', url: `/api/email/public/${slug}` });
    expect(page.statusCode).toBe(404);
    // Another account is untouched.
    expect(
      (await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: other.headers })).statusCode,
    ).toBe(200);

    // An account Stripe still bills is refused, whatever its plan says: its subscription is cancelled first.
    const paying = await createUser(ctx.db, { plan: 'pro' });
    await ctx.db
      .updateTable('users')
      .set({ stripe_subscription_id: 'sub_live', current_period_end: new Date(Date.now() + 20 * 86_400_000) })
      .where('id', '=', paying.user.id)
      .execute();
    for (const plan of ['pro', 'free']) {
      expect((await runAdmin(['set-plan', paying.user.email, plan], env)).code).toBe(0);
      const refused = await runAdmin(['delete-account', paying.user.email, '--yes'], env);
      expect(refused.code, plan).toBe(1);
      expect(refused.stderr).toContain('has a live Stripe subscription: cancel it in Stripe first');
      expect((await userRow(paying.user.id)).email).toBe(paying.user.email);
    }
    // Cancelled at its period's end, and the period over: nothing more is billed.
    await ctx.db
      .updateTable('users')
      .set({ cancel_at_period_end: true, current_period_end: new Date(Date.now() - 86_400_000) })
      .where('id', '=', paying.user.id)
      .execute();
    expect((await runAdmin(['delete-account', paying.user.email, '--yes'], env)).code).toBe(0);
  });

  it('explains unknown accounts, bad arguments and shows help', async () => {
    // Four independent runs that change nothing: side by side.
    const [missing, badPlan, unknown, help] = await Promise.all([
      runAdmin(['verify', uniqueEmail('nobody')], env),
      runAdmin(['set-plan', 'a@example.com', 'gold'], env),
      runAdmin(['delete-everything'], env),
      runAdmin(['help'], env),
    ]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^No account with the email .+@example\.com\.$/m);

    expect(badPlan.code).toBe(2);
    expect(badPlan.stderr).toContain('set-plan needs a plan: free or pro.');
    expect(badPlan.stderr).toContain('Usage: npm run admin');

    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown command "delete-everything".');

    expect(help.code).toBe(0);
    expect(help.stdout).toContain('set-plan EMAIL pro|free');
    expect(help.stdout).toContain('verify EMAIL');
    expect(help.stdout).toContain('delete-account EMAIL --yes');
  });
});

describe('admin CLI on the embedded database', { timeout: 120_000 }, () => {
  let dataDir: string;
  let server: EmbeddedPostgres | undefined;
  const email = 'embedded.owner@example.com';

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-admin-'));
    await fs.chmod(dataDir, 0o755);
    // Stands in for a running server: it owns DATA_DIR (owner.pid is this live node process).
    server = await startEmbeddedPostgres({ dataDir, log: () => undefined, settings: { fsync: 'off' } });
    const db = createDb(createPool(server.connectionString('postgres'), 1));
    await migrateToLatest(db);
    await db.insertInto('users').values({ email, password_hash: null, verified_at: null }).execute();
    await db.destroy();
  });
  afterAll(async () => {
    await server?.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const plan = async () => {
    const db = createDb(createPool(server!.connectionString('postgres'), 1));
    try {
      return await db
        .selectFrom('users')
        .select(['plan', 'verified_at'])
        .where('email', '=', email)
        .executeTakeFirstOrThrow();
    } finally {
      await db.destroy();
    }
  };

  it('works while the server is running, through the running database', async () => {
    const run = await runAdmin(['set-plan', email, 'pro'], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`The plan of ${email} is now pro.`);
    expect((await plan()).plan).toBe('pro');
  });

  it('works when the server is stopped, by starting the embedded database itself', async () => {
    await server!.stop();
    server = undefined;
    const run = await runAdmin(['verify', email], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`${email} is now verified.`);
    // It stopped its database again: the data dir is free for the server.
    await expect(fs.access(path.join(dataDir, 'postgres', 'postmaster.pid'))).rejects.toThrow();
    server = await startEmbeddedPostgres({ dataDir, log: () => undefined });
    const row = await plan();
    expect(row.plan).toBe('pro');
    expect(row.verified_at).not.toBeNull();
  });
});
