import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

const MISSING = 'Missing required fields: Please fill in recipient email and HTML content';
const TOO_MANY = 'Too many recipients: Maximum 5 recipient email addresses allowed';

describe('POST /api/email/send', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: { FREE_MONTHLY_LIMIT: '10', FREE_SENDS_PER_MINUTE: '1000', PRO_SENDS_PER_MINUTE: '1000' },
    });
    ctx.clock.set(new Date('2026-03-15T12:00:00Z'));
  });
  afterAll(async () => ctx?.close());

  let alice: TestUser;
  beforeEach(async () => {
    alice = await createUser(ctx.db);
  });

  const send = (u: TestUser | undefined, body: unknown) =>
    ctx.app.inject({ method: 'POST', url: '/api/email/send', headers: u?.headers, payload: body as object });
  const outboxFor = (emailId: string) =>
    ctx.db
      .selectFrom('mail_outbox')
      .selectAll()
      .where('email_id', '=', emailId)
      .orderBy('to_addresses')
      .execute();
  const emailRow = (id: string) =>
    ctx.db.selectFrom('emails').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const countEmails = async (userId: string) =>
    Number(
      (
        await ctx.db
          .selectFrom('emails')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('user_id', '=', userId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  it('queues one message per recipient, stores the content once on the email and answers its id', async () => {
    const res = await send(alice, {
      to: 'a@example.com, b@example.com',
      subject: 'Hello',
      html: '<p>Hi</p>',
      inlineCss: false,
    });
    expect(res.statusCode).toBe(200);
    const { id } = res.json();
    const rows = await outboxFor(id);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.to_addresses)).toEqual([['a@example.com'], ['b@example.com']]);
    for (const row of rows) {
      expect(row).toMatchObject({
        subject: null,
        html: null,
        text: null,
        reply_to: alice.user.email,
        priority: 2,
        state: 'queued',
      });
    }
    expect(new Set(rows.map((r) => r.message_id)).size).toBe(2);
    expect(await emailRow(id)).toMatchObject({ subject: 'Hello', html: '<p>Hi</p>' });
    // Charged once, whatever the number of recipients.
    const ledger = await ctx.db.selectFrom('usage_ledger').selectAll().where('email_id', '=', id).execute();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]).toMatchObject({ outbox_id: null, refunded_at: null });
  });

  it('answers 401 without a session', async () => {
    const res = await send(undefined, { to: 'a@example.com', html: '<p>x</p>' });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ error: 'Not authenticated', code: 'unauthenticated' });
  });

  it.each([
    [{ to: '', html: '<p>x</p>' }],
    [{ to: 'a@example.com', html: '   ' }],
    [{ to: ' , ,', html: '<p>x</p>' }],
    // Left out is answered as left empty.
    [{ html: '<p>x</p>' }],
    [{ to: 'a@example.com' }],
    [{ subject: 'Hi' }],
  ])('rejects missing fields %j with the spec message', async (body) => {
    const res = await send(alice, body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: MISSING, code: 'missing_fields' });
    expect(await countEmails(alice.user.id)).toBe(0);
  });

  it('rejects 6 recipients and accepts 5', async () => {
    const six = ['1', '2', '3', '4', '5', '6'].map((n) => `u${n}@example.com`);
    const bad = await send(alice, { to: six.join(','), html: '<p>x</p>' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toBe(TOO_MANY);
    const ok = await send(alice, { to: six.slice(0, 5).join(', '), html: '<p>x</p>' });
    expect(ok.statusCode).toBe(200);
    expect(await outboxFor(ok.json().id)).toHaveLength(5);
  });

  it('splits on commas, trims, drops empties and duplicates', async () => {
    const res = await send(alice, { to: 'a@x.com, , b@y.com,A@X.com', html: '<p>x</p>' });
    expect(res.statusCode).toBe(200);
    expect((await outboxFor(res.json().id)).map((r) => r.to_addresses)).toEqual([['a@x.com'], ['b@y.com']]);
    const email = await ctx.db
      .selectFrom('emails')
      .selectAll()
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    expect(email.to_addresses).toBe('a@x.com, b@y.com');
  });

  it.each([
    '"quoted"@example.com',
    'Alice <a@example.com>',
    'undisclosed-recipients: a@example.com;',
    'a@example.com\r\nBcc: victim@example.com',
    'a@example.com\nb@example.com',
  ])('rejects the address %j and queues nothing', async (to) => {
    const res = await send(alice, { to, html: '<p>x</p>' });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_recipient');
    expect(await countEmails(alice.user.id)).toBe(0);
  });

  it('uses Test Email for an empty subject and strips CR/LF from a subject', async () => {
    const empty = await send(alice, { to: 'a@example.com', subject: '  ', html: '<p>x</p>' });
    expect((await emailRow(empty.json().id)).subject).toBe('Test Email');
    const missing = await send(alice, { to: 'a@example.com', html: '<p>x</p>' });
    expect((await emailRow(missing.json().id)).subject).toBe('Test Email');
    const injected = await send(alice, {
      to: 'a@example.com',
      subject: 'Hi\r\nBcc: x@evil.com',
      html: '<p>x</p>',
    });
    expect((await emailRow(injected.json().id)).subject).toBe('Hi Bcc: x@evil.com');
  });

  it('refuses unverified users with 403 and the spec message', async () => {
    const bob = await createUser(ctx.db, { verified: false });
    const res = await send(bob, { to: 'a@example.com', html: '<p>x</p>' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      error: 'To send emails you must verify your email first.',
      code: 'email_unverified',
    });
    expect(await countEmails(bob.user.id)).toBe(0);
  });

  it('caps the HTML at 1 MB with a clear 413', async () => {
    const html = `<p>${'x'.repeat(1024 * 1024)}</p>`;
    const res = await send(alice, { to: 'a@example.com', html });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toMatch(/too large.*1 MB/);
  });

  it('rejects unknown fields and server-owned fields', async () => {
    const res = await send(alice, { to: 'a@example.com', html: '<p>x</p>', userId: 'someone-else' });
    expect(res.statusCode).toBe(400);
    expect(await countEmails(alice.user.id)).toBe(0);
  });

  it('rejects the 11th free send of a month with nothing queued, and resets next month', async () => {
    for (let i = 0; i < 10; i++) {
      expect((await send(alice, { to: 'a@example.com', html: `<p>${i}</p>` })).statusCode).toBe(200);
    }
    const eleventh = await send(alice, { to: 'a@example.com', html: '<p>11</p>' });
    expect(eleventh.statusCode).toBe(429);
    expect(eleventh.json().code).toBe('monthly_limit_reached');
    expect(eleventh.json().error).toMatch(
      /Free plan limit reached: 10 sends per month\. It resets on April 1, 2026/,
    );
    expect(await countEmails(alice.user.id)).toBe(10);
    const outbox = await ctx.db
      .selectFrom('mail_outbox')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('reply_to', '=', alice.user.email)
      .executeTakeFirstOrThrow();
    expect(Number(outbox.n)).toBe(10);

    const saved = ctx.clock.now();
    ctx.clock.set(new Date('2026-04-01T00:00:01Z'));
    try {
      expect((await send(alice, { to: 'a@example.com', html: '<p>april</p>' })).statusCode).toBe(200);
    } finally {
      ctx.clock.set(saved);
    }
  });

  it('holds the limit exactly under 50 parallel sends', async () => {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => send(alice, { to: 'a@example.com', html: `<p>${i}</p>` })),
    );
    const codes = results.map((r) => r.statusCode);
    expect(codes.filter((c) => c === 200)).toHaveLength(10);
    expect(codes.filter((c) => c === 429)).toHaveLength(40);
    expect(await countEmails(alice.user.id)).toBe(10);
  });

  it('does not limit Pro users by the free allowance', async () => {
    const pro = await createUser(ctx.db, { plan: 'pro' });
    for (let i = 0; i < 12; i++) {
      expect((await send(pro, { to: 'a@example.com', html: `<p>${i}</p>` })).statusCode).toBe(200);
    }
    const [row] = await ctx.db
      .selectFrom('mail_outbox')
      .select('priority')
      .where('reply_to', '=', pro.user.email)
      .limit(1)
      .execute();
    expect(row?.priority).toBe(1);
  });

  const usage = async (u: TestUser) =>
    (await ctx.app.inject({ method: 'GET', url: '/api/user/usage', headers: u.headers })).json().usage;
  const fail = (ids: string[]) =>
    ctx.db
      .updateTable('mail_outbox')
      .set({ state: 'failed', last_error_code: 550, last_error: '550 5.1.1 mailbox unavailable' })
      .where('id', 'in', ids)
      .execute();

  it('never refunds a deleted email but refunds a permanently failed delivery', async () => {
    const first = await send(alice, { to: 'a@example.com', html: '<p>1</p>' });
    const second = await send(alice, { to: 'a@example.com', html: '<p>2</p>' });
    expect(await usage(alice)).toMatchObject({ emailsThisMonth: 2, remaining: 8, totalEmails: 2, limit: 10 });

    await ctx.db.deleteFrom('emails').where('id', '=', first.json().id).execute();
    expect(await usage(alice)).toMatchObject({ emailsThisMonth: 2, remaining: 8, totalEmails: 2 });

    await fail((await outboxFor(second.json().id)).map((r) => r.id));
    expect(await usage(alice)).toMatchObject({ emailsThisMonth: 1, remaining: 9, totalEmails: 1 });
  });

  it('refunds a send to several recipients only when every recipient failed permanently, once', async () => {
    const res = await send(alice, { to: 'a@example.com, b@example.com, c@example.com', html: '<p>x</p>' });
    const [a, b, c] = await outboxFor(res.json().id);
    expect(await usage(alice)).toMatchObject({ emailsThisMonth: 1, totalEmails: 1 });
    await fail([a!.id]);
    expect(await usage(alice)).toMatchObject({ emailsThisMonth: 1, totalEmails: 1 });
    await ctx.db
      .updateTable('mail_outbox')
      .set({ state: 'sent', sent_at: new Date() })
      .where('id', '=', b!.id)
      .execute();
    await fail([c!.id]);
    // Delivered to one of three: the send was used.
    expect(await usage(alice)).toMatchObject({ emailsThisMonth: 1, totalEmails: 1 });

    const none = await send(alice, { to: 'a@example.com, b@example.com', html: '<p>y</p>' });
    const rows = await outboxFor(none.json().id);
    await fail([rows[0]!.id]);
    expect(await usage(alice)).toMatchObject({ emailsThisMonth: 2, totalEmails: 2 });
    await fail([rows[1]!.id]);
    expect(await usage(alice)).toMatchObject({ emailsThisMonth: 1, totalEmails: 1 });
    const ledger = await ctx.db
      .selectFrom('usage_ledger')
      .selectAll()
      .where('email_id', '=', none.json().id)
      .execute();
    expect(ledger).toHaveLength(1);
    expect(ledger[0]!.refunded_at).toBeInstanceOf(Date);
  });

  it('refunds exactly once when every recipient fails at the same moment in separate transactions', async () => {
    for (let round = 0; round < 5; round++) {
      const u = await createUser(ctx.db);
      const res = await send(u, {
        to: 'a@example.com, b@example.com, c@example.com, d@example.com, e@example.com',
        html: '<p>x</p>',
      });
      const rows = await outboxFor(res.json().id);
      // Five workers settling five recipients at once, each in its own transaction, all five
      // open at the same time (each holds its transaction a moment after its update).
      await Promise.all(
        rows.map((r) =>
          ctx.db.transaction().execute(async (trx) => {
            await trx
              .updateTable('mail_outbox')
              .set({ state: 'failed', last_error_code: 550, last_error: '550 5.1.1 mailbox unavailable' })
              .where('id', '=', r.id)
              .execute();
            await sql`select pg_sleep(0.2)`.execute(trx);
          }),
        ),
      );
      expect(await usage(u)).toMatchObject({ emailsThisMonth: 0, totalEmails: 0 });
      const counter = await ctx.db
        .selectFrom('usage_counters')
        .select('count')
        .where('user_id', '=', u.user.id)
        .execute();
      expect(counter).toEqual([{ count: 0 }]);
    }
  });
});

describe('per-minute send rate', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { FREE_SENDS_PER_MINUTE: '3', FREE_MONTHLY_LIMIT: '100' } });
    ctx.clock.set(new Date('2026-03-15T12:00:10Z'));
  });
  afterAll(async () => ctx?.close());

  it('answers 429 naming the limit and when to retry, then allows the next minute', async () => {
    const u = await createUser(ctx.db);
    const send = () =>
      ctx.app.inject({
        method: 'POST',
        url: '/api/email/send',
        headers: u.headers,
        payload: { to: 'a@example.com', html: '<p>x</p>' },
      });
    for (let i = 0; i < 3; i++) expect((await send()).statusCode).toBe(200);
    const limited = await send();
    expect(limited.statusCode).toBe(429);
    expect(limited.json()).toEqual({
      error: 'Sending too fast: the Free plan allows 3 sends per minute. Try again in 50 seconds.',
      code: 'send_rate_limited',
    });
    ctx.clock.advance(60_000);
    expect((await send()).statusCode).toBe(200);
  });

  it('a burst over the rate with sends left this month hears only "too fast", never the monthly limit', async () => {
    // Ten left this month, three a minute: the refused sends must not make the month look full.
    const limits = await createTestContext({ env: { FREE_SENDS_PER_MINUTE: '3', FREE_MONTHLY_LIMIT: '10' } });
    try {
      limits.clock.set(new Date('2026-03-15T12:00:10Z'));
      const u = await createUser(limits.db);
      const send = (to: string) =>
        limits.app.inject({
          method: 'POST',
          url: '/api/email/send',
          headers: u.headers,
          payload: { to, html: `<p>${to}</p>` },
        });
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => send(`b${i}@example.com`)));
      const codes = results.map((r) => (r.statusCode === 200 ? 'sent' : r.json<{ code: string }>().code));
      expect(codes.filter((c) => c === 'sent')).toHaveLength(3);
      expect(codes.filter((c) => c !== 'sent')).toEqual(Array(27).fill('send_rate_limited'));
      const usage = await limits.app.inject({ method: 'GET', url: '/api/user/usage', headers: u.headers });
      expect(usage.json().usage).toMatchObject({ emailsThisMonth: 3, remaining: 7 });

      // A send the month refuses gives back the minute's send it took first.
      limits.clock.advance(60_000);
      await limits.db
        .updateTable('usage_counters')
        .set({ count: 10 })
        .where('user_id', '=', u.user.id)
        .execute();
      const full = await send('late@example.com');
      expect(full.json().code).toBe('monthly_limit_reached');

      const minute = await limits.db
        .selectFrom('send_rate')
        .select('count')
        .where('user_id', '=', u.user.id)
        .where('minute', '=', new Date('2026-03-15T12:01:00Z'))
        .execute();
      expect(minute).toEqual([{ count: 0 }]);
      // With the minute's sends used up as well, the answer is still the month's: waiting a minute
      // would not help.
      await limits.db.updateTable('send_rate').set({ count: 3 }).where('user_id', '=', u.user.id).execute();
      const both = await send('later@example.com');
      expect(both.json().code).toBe('monthly_limit_reached');
    } finally {
      await limits.close();
    }
  });
});

describe('CSS inlining', () => {
  let ctx: TestContext;
  let canary: http.Server;
  let hits = 0;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { FREE_SENDS_PER_MINUTE: '100' } });
    canary = http.createServer((_req, res) => {
      hits++;
      res.end('p { color: red }');
    });
    await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await ctx?.close();
    await new Promise((r) => canary.close(r));
  });

  it('moves <style> rules into attributes, keeps @media, and fetches nothing', async () => {
    const port = (canary.address() as AddressInfo).port;
    const u = await createUser(ctx.db);
    const html = `<html><head>
      <link rel="stylesheet" href="http://127.0.0.1:${port}/x.css">
      <style>p.lead { color: #ff0000; font-size: 18px } @media (max-width: 600px) { p.lead { font-size: 14px !important } }</style>
      </head><body><p class="lead">Hello</p><img src="http://127.0.0.1:${port}/pixel.png"></body></html>`;
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: u.headers,
      payload: { to: 'a@example.com', html, inlineCss: true },
    });
    expect(res.statusCode).toBe(200);
    const row = await ctx.db
      .selectFrom('emails')
      .select('html')
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    expect(row.html).toMatch(/<p class="lead" style="color: #ff0000; ?font-size: 18px;?">/);
    expect(row.html).toContain('@media (max-width: 600px)');
    await new Promise((r) => setTimeout(r, 200));
    expect(hits).toBe(0);

    const plain = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: u.headers,
      payload: { to: 'a@example.com', html, inlineCss: false },
    });
    const stored = await ctx.db
      .selectFrom('emails')
      .select('html')
      .where('id', '=', plain.json().id)
      .executeTakeFirstOrThrow();
    expect(stored.html).toBe(html);
  });
});
