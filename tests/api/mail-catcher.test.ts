import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MailboxMessageResponse, MailboxResponse } from '../../src/shared/contract/dev-mailbox.ts';
import { startMailDelivery, type MailDelivery } from '../../src/server/mail/mail-delivery.ts';
import { enqueueMail } from '../../src/server/mail/outbox.ts';
import { poll } from '../support/poll.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';

describe('local mail catcher and /api/dev/mailbox', () => {
  let ctx: TestContext;
  let delivery: MailDelivery;

  beforeAll(async () => {
    // No SMTP_URL: the real wiring starts a catcher on loopback and delivers to it.
    ctx = await createTestContext({ env: { TRUST_PROXY: '1' }, deps: { mailCatcher: true } });
    delivery = await startMailDelivery({
      config: ctx.config,
      db: ctx.db,
      connectionString: ctx.databaseUrl,
      concurrency: 2,
      worker: { pollIntervalMs: 200 },
    });
  });
  afterAll(async () => {
    await delivery?.stop({ deadlineMs: 1_000 });
    await ctx?.close();
  });

  const list = async (query = '') => {
    const res = await ctx.app.inject({ method: 'GET', url: `/api/dev/mailbox${query}` });
    expect(res.statusCode).toBe(200);
    return res.json<MailboxResponse>();
  };

  it('runs a real SMTP server on 127.0.0.1 and reports mailCatcher in /api/config', async () => {
    expect(delivery.catcher?.url).toMatch(/^smtp:\/\/127\.0\.0\.1:\d+$/);
    const res = await ctx.app.inject({ method: 'GET', url: '/api/config' });
    expect(res.json()).toMatchObject({ mailCatcher: true });
  });

  it('an enqueued mail appears in the mailbox, newest first', async () => {
    const [first] = await enqueueMail(ctx.db, {
      priority: 'system',
      to: ['ada@example.com'],
      subject: 'Verify your email',
      html: '<h1>Welcome</h1><p>Click <a href="http://localhost:3000/verify?token=abc">verify</a></p>',
      replyTo: 'support@example.com',
    });
    const seconds = await enqueueMail(ctx.db, {
      priority: 'free',
      to: ['grace@example.org', 'linus@example.net'],
      subject: 'Second',
      html: '<p>Two</p>',
      text: 'Two, in plain text',
    });
    const body = await poll(
      async () => {
        const b = await list();
        return b.messages.length >= 3 ? b : undefined;
      },
      { what: 'three caught mails' },
    );
    expect(body.messages).toHaveLength(3);
    const [newest, , oldest] = body.messages;
    expect(newest!.receivedAt >= oldest!.receivedAt).toBe(true);
    const verify = body.messages.find((m) => m.subject === 'Verify your email')!;
    expect(verify).toMatchObject({
      from: 'Proofmail <no-reply@localhost>',
      to: ['ada@example.com'],
      subject: 'Verify your email',
    });
    expect(verify.html).toContain('<h1>Welcome</h1>');
    expect(verify.text).toContain('WELCOME');
    expect(new Date(verify.receivedAt).toISOString()).toBe(verify.receivedAt);
    expect(Object.keys(verify).sort()).toEqual(['from', 'html', 'id', 'receivedAt', 'subject', 'text', 'to']);
    // One message per recipient, each addressed to that recipient only.
    const twos = body.messages.filter((m) => m.subject === 'Second');
    expect(twos.map((m) => m.to).sort()).toEqual([['grace@example.org'], ['linus@example.net']]);
    expect(twos.map((m) => m.text?.trim())).toEqual(['Two, in plain text', 'Two, in plain text']);
    const two = twos.find((m) => m.to[0] === 'linus@example.net')!;

    // One message, with its headers.
    const res = await ctx.app.inject({ method: 'GET', url: `/api/dev/mailbox/${verify.id}` });
    expect(res.statusCode).toBe(200);
    const { message } = res.json<MailboxMessageResponse>();
    expect(message.messageId).toBe(first!.messageId);
    expect(message.headers).toContainEqual({ name: 'Message-ID', value: first!.messageId });
    expect(message.headers).toContainEqual({ name: 'Reply-To', value: 'support@example.com' });
    expect(message.headers.find((h) => h.name === 'Content-Type')?.value).toMatch(/^multipart\/alternative/);
    expect(message.size).toBeGreaterThan(100);

    // Filter by recipient (case-insensitive).
    const forLinus = await list('?to=LINUS@example.net');
    expect(forLinus.messages.map((m) => m.id)).toEqual([two.id]);
    // The page lists without the parts (each may be 1 MB) and reads the one it shows.
    const summaries = await list('?to=linus@example.net&bodies=none');
    expect(summaries.messages).toEqual([{ ...forLinus.messages[0], html: null, text: null }]);
    expect(forLinus.messages[0]!.html).toBeTruthy();
    // The catcher stores a mail before it answers 250, and the worker records `sent` after the
    // answer: a mail can be listed while its row still says `sending`.
    const rows = await poll(
      async () => {
        const all = await ctx.db.selectFrom('mail_outbox').select(['message_id', 'state']).execute();
        return all.every((r) => r.state === 'sent') ? all : undefined;
      },
      { what: 'three outbox rows marked sent' },
    );
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => r.message_id).sort()).toEqual(
      [first!.messageId, ...seconds.map((m) => m.messageId)].sort(),
    );
  });

  it('answers 404 for unknown or malformed message ids', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/dev/mailbox/${id}` });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Message not found', code: 'not_found' });
    }
  });

  it('answers only loopback clients: anyone else gets the standard 404, whatever X-Forwarded-For says', async () => {
    const { messages } = await list();
    const id = messages[0]!.id;
    const requests = [
      { method: 'GET', url: '/api/dev/mailbox' },
      { method: 'GET', url: `/api/dev/mailbox/${id}` },
      { method: 'GET', url: '/api/dev/mailbox?limit=abc' },
      { method: 'DELETE', url: '/api/dev/mailbox' },
    ] as const;
    for (const r of requests) {
      for (const headers of [{}, { 'x-forwarded-for': '127.0.0.1' }]) {
        const res = await ctx.app.inject({ ...r, remoteAddress: '10.0.0.1', headers });
        expect(res.statusCode, `${r.method} ${r.url}`).toBe(404);
        expect(res.json()).toEqual({ error: 'Not found', code: 'not_found' });
      }
    }
    // The page: outsiders get the 404; loopback reaches the SPA fallback (no build in tests: 503).
    const page = await ctx.app.inject({
      method: 'GET',
      url: '/dev/mailbox',
      remoteAddress: '10.0.0.1',
      headers: { accept: 'text/html' },
    });
    expect(page.statusCode).toBe(404);
    const local = await ctx.app.inject({
      method: 'GET',
      url: '/dev/mailbox',
      headers: { accept: 'text/html' },
    });
    expect(local.statusCode).toBe(503);
    // IPv6 loopback and IPv4-mapped loopback are loopback.
    for (const remoteAddress of ['::1', '::ffff:127.0.0.1', '127.1.2.3']) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/dev/mailbox', remoteAddress });
      expect(res.statusCode, remoteAddress).toBe(200);
    }
    // Nothing was deleted by the outsider's DELETE.
    expect((await list()).messages.length).toBe(messages.length);
  });

  it('the catcher stores mail sent to it directly over SMTP, answering that it was not delivered', async () => {
    const transport = nodemailer.createTransport({
      url: delivery.catcher!.url,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    const info = await transport.sendMail({
      from: { name: 'Direct', address: 'direct@example.com' },
      to: [{ name: '', address: 'direct-to@example.com' }],
      subject: 'Direct',
      text: 'direct',
    });
    transport.close();
    expect(info.response).toMatch(/^250 .*not delivered/);
    const { messages } = await list('?to=direct-to@example.com');
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({ from: 'Direct <direct@example.com>', html: null, subject: 'Direct' });
  });

  it('keeps an internationalised recipient in the ASCII form it was sent to, as accounts and history keep it', async () => {
    const transport = nodemailer.createTransport({
      url: delivery.catcher!.url,
      disableFileAccess: true,
      disableUrlAccess: true,
    });
    // Proofmail sends to the ASCII form; the SMTP server library turns a domain into Unicode.
    await transport.sendMail({
      from: 'idn-sender@xn--bcher-kva.example',
      to: 'ann@xn--bcher-kva.example',
      subject: 'IDN',
      text: 'idn',
    });
    transport.close();
    const { messages } = await list(`?to=${encodeURIComponent('ann@xn--bcher-kva.example')}`);
    expect(messages.map((m) => m.to)).toEqual([['ann@xn--bcher-kva.example']]);
    // Asked for as people write it, it is found too.
    const unicode = await list(`?to=${encodeURIComponent('Ann@Bücher.example')}`);
    expect(unicode.messages.map((m) => m.id)).toEqual([messages[0]!.id]);
    const row = await ctx.db
      .selectFrom('caught_mail')
      .select('envelope_from')
      .where('id', '=', messages[0]!.id)
      .executeTakeFirstOrThrow();
    expect(row.envelope_from).toBe('idn-sender@xn--bcher-kva.example');
  });

  it('DELETE /api/dev/mailbox empties it', async () => {
    const before = (await list()).messages.length;
    const res = await ctx.app.inject({ method: 'DELETE', url: '/api/dev/mailbox' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ deleted: before });
    expect((await list()).messages).toEqual([]);
  });
});

describe('/api/dev/mailbox with a real relay (SMTP_URL set)', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: { SMTP_URL: 'smtp://127.0.0.1:2525' },
      deps: { mailCatcher: false },
    });
  });
  afterAll(async () => ctx?.close());

  it('does not exist, even for loopback clients', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/dev/mailbox' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Not found', code: 'not_found' });
    const config = await ctx.app.inject({ method: 'GET', url: '/api/config' });
    expect(config.json()).toMatchObject({ mailCatcher: false });
  });
});
