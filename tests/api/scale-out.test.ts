import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool, type Db } from '../../src/server/db/database.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../src/server/db/embedded-postgres.ts';
import { migrateToLatest } from '../../src/server/db/migrate.ts';
import { monthOf } from '../../src/server/features/email/usage.repo.ts';
import { startScript, type RunningScript } from '../support/child-process.ts';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.ts';
import { poll } from '../support/poll.ts';
import { SmtpSink } from '../support/smtp-sink.ts';
import { createUser } from '../support/users.ts';
import { freePort } from '../support/free-port.ts';

/**
 * Scale-out as docs/architecture.md §1.2 describes it: two app processes (src/server/main.ts, mail
 * workers included) on one PostgreSQL cluster of their own. Limits, delivery and webhook idempotency must hold across processes.
 */

async function startApp(env: Record<string, string>): Promise<{ url: string; process: RunningScript }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const app = startScript('src/server/main.ts', [], {
    env: { ...env, PORT: String(port), PUBLIC_URL: url, LOG_LEVEL: 'warn' },
  });
  await app.waitForOutput(/Proofmail is running/);
  return { url, process: app };
}

describe('two app processes on one PostgreSQL', () => {
  let dataDir: string;
  let cluster: EmbeddedPostgres;
  let db: Db;
  let sink: SmtpSink;
  let stripe: FakeStripe;
  let apps: { url: string; process: RunningScript }[] = [];

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-scale-'));
    await fs.chmod(dataDir, 0o755);
    cluster = await startEmbeddedPostgres({
      dataDir,
      log: () => undefined,
      settings: { fsync: 'off', max_connections: '200' },
    });
    const admin = new pg.Client({ connectionString: cluster.connectionString() });
    await admin.connect();
    await admin.query('create database proofmail');
    await admin.end();
    const url = cluster.connectionString('proofmail');
    db = createDb(createPool(url, 5));
    await migrateToLatest(db);
    sink = await SmtpSink.start({ keepRaw: false });
    stripe = await startFakeStripe();
    const env = {
      ...stripe.env,
      DATABASE_URL: url,
      SMTP_URL: sink.url,
      MAIL_WORKERS: '4',
      FREE_MONTHLY_LIMIT: '10',
      FREE_SENDS_PER_MINUTE: '1000',
      PRO_SENDS_PER_MINUTE: '100000',
    };
    apps = await Promise.all([startApp(env), startApp(env)]);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(apps.map((app) => app.process.stop()));
    await db?.destroy();
    await sink?.stop();
    await stripe?.stop();
    await cluster?.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const post = (base: string, url: string, headers: Record<string, string>, body: unknown) =>
    fetch(`${base}${url}`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('100 parallel sends by a free user with 10 left, across both processes: exactly 10 accepted', async () => {
    const u = await createUser(db);
    await db
      .insertInto('usage_counters')
      .values({ user_id: u.user.id, month: monthOf(new Date()), count: 0 })
      .execute();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        post(apps[i % 2]!.url, '/api/email/send', u.headers, {
          to: 'client@example.com',
          html: `<p>${i}</p>`,
        }),
      ),
    );
    const codes = results.map((r) => r.status);
    expect(codes.filter((c) => c === 200)).toHaveLength(10);
    expect(codes.filter((c) => c === 429)).toHaveLength(90);
    const emails = await db.selectFrom('emails').select('id').where('user_id', '=', u.user.id).execute();
    expect(emails).toHaveLength(10);
  });

  it('1,000 sends through both processes are delivered exactly once each', async () => {
    const u = await createUser(db, { plan: 'pro' });
    sink.clear();
    let next = 0;
    const ids: string[] = [];
    await Promise.all(
      Array.from({ length: 16 }, async (_, w) => {
        while (next < 1000) {
          const i = next++;
          const res = await post(apps[w % 2]!.url, '/api/email/send', u.headers, {
            to: 'client@example.com',
            subject: `n${i}`,
            html: `<p>${i}</p>`,
          });
          expect(res.status).toBe(200);
          ids.push(((await res.json()) as { id: string }).id);
        }
      }),
    );
    const rows = await db
      .selectFrom('mail_outbox')
      .select(['message_id', 'state', 'locked_by'])
      .where('email_id', 'in', ids)
      .execute();
    expect(rows).toHaveLength(1000);
    await poll(
      async () =>
        Number(
          (
            await db
              .selectFrom('mail_outbox')
              .select((eb) => eb.fn.countAll().as('n'))
              .where('email_id', 'in', ids)
              .where('state', '=', 'sent')
              .executeTakeFirstOrThrow()
          ).n,
        ) === 1000,
      { timeoutMs: 120_000, intervalMs: 200, what: '1,000 mails sent' },
    );
    const wanted = new Set(rows.map((r) => r.message_id));
    const received = sink.messages.filter((m) => m.messageId && wanted.has(m.messageId));
    expect(received).toHaveLength(1000);
    expect(new Set(received.map((m) => m.messageId)).size).toBe(1000);
    // Both processes' workers took part.
    const sent = await db
      .selectFrom('mail_outbox')
      .select('locked_by')
      .where('email_id', 'in', ids)
      .execute();
    const hosts = new Set(sent.map((r) => r.locked_by?.split(':').slice(0, 2).join(':')));
    expect(hosts.size).toBeGreaterThanOrEqual(2);
  }, 180_000);

  it('a webhook event delivered to both processes at once has one effect', async () => {
    const u = await createUser(db);
    const checkout = await post(apps[0]!.url, '/api/billing/create-checkout', u.headers, {
      price: 'pro_monthly',
    });
    expect(checkout.status).toBe(200);
    const { stripe_customer_id: customer } = await db
      .selectFrom('users')
      .select('stripe_customer_id')
      .where('id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    const sub = stripe.createSubscription(customer!);
    const signed = stripe.signedEvent('customer.subscription.created', { ...sub });
    const listsBefore = stripe.callsTo('/v1/subscriptions', 'GET').length;
    const answers = await Promise.all(
      [0, 1, 0, 1].map((i) =>
        fetch(`${apps[i]!.url}/api/billing/webhook`, {
          method: 'POST',
          headers: signed.headers,
          body: signed.payload,
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    const events = await db
      .selectFrom('stripe_events')
      .selectAll()
      .where('id', '=', signed.event.id)
      .execute();
    expect(events).toHaveLength(1);
    expect(stripe.callsTo('/v1/subscriptions', 'GET').length - listsBefore).toBe(1);
    const user = await db
      .selectFrom('users')
      .select(['plan', 'subscription_status'])
      .where('id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    expect(user).toEqual({ plan: 'pro', subscription_status: 'active' });
  });
});
