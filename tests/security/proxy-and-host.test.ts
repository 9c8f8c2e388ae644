import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMailDelivery, type MailDelivery } from '../../src/server/mail/mail-delivery.ts';
import { signIn, signUp } from '../support/auth-api.ts';
import { poll } from '../support/poll.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

/**
 * Who the client is and which host it asked for, behind a reverse proxy and on a default install
 * (docs/architecture.md §6): the mail catcher's mailbox answers only a client on this machine,
 * every route answers only the host of PUBLIC_URL, and TRUST_PROXY believes only the
 * X-Forwarded-For entries its own proxies wrote.
 */

const PUBLIC_HOST = 'proofmail.example';
/** A request as a reverse proxy on this machine forwards it: TCP peer 127.0.0.1, the client appended. */
const viaProxy = (client: string, forged?: string) => ({
  remoteAddress: '127.0.0.1',
  headers: { 'x-forwarded-for': forged ? `${forged}, ${client}` : client },
});

describe('the mail catcher behind a reverse proxy on the same machine', () => {
  let ctx: TestContext;
  let delivery: MailDelivery;

  beforeAll(async () => {
    // The install the attack needs: no SMTP_URL (the catcher runs), a proxy on this machine.
    ctx = await createTestContext({
      env: { PUBLIC_URL: `https://${PUBLIC_HOST}`, TRUST_PROXY: '1', CAPTCHA_PROVIDER: 'none' },
      deps: { mailCatcher: true },
    });
    delivery = await startMailDelivery({
      config: ctx.config,
      db: ctx.db,
      connectionString: ctx.databaseUrl,
      concurrency: 1,
      worker: { pollIntervalMs: 100 },
    });
  });
  afterAll(async () => {
    await delivery?.stop({ deadlineMs: 1_000 });
    await ctx?.close();
  });

  it('a visitor cannot take over an account by reading its reset link from the mailbox through the proxy', async () => {
    const victim = await signUp(ctx, uniqueEmail('victim'));
    const attacker = viaProxy('203.0.113.9');
    const asked = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/request-password-reset',
      payload: { email: victim.email },
      ...attacker,
    });
    expect(asked.statusCode).toBe(200);
    // The reset mail really reaches the catcher's store.
    await poll(
      async () =>
        (await ctx.db
          .selectFrom('caught_mail')
          .select('id')
          .where('subject', 'like', 'Reset your%')
          .where((eb) => eb(eb.val(victim.email), '=', eb.fn.any('to_addresses')))
          .executeTakeFirst()) ?? undefined,
      { what: 'the reset mail in the catcher' },
    );

    // The attacker reads the mailbox through the proxy, with or without a forged "I am local".
    let stolenToken: string | undefined;
    for (const request of [attacker, viaProxy('203.0.113.9', '127.0.0.1')]) {
      for (const url of ['/api/dev/mailbox', `/api/dev/mailbox?to=${encodeURIComponent(victim.email)}`]) {
        const res = await ctx.app.inject({ method: 'GET', url, ...request });
        expect(res.statusCode, `${url} ${request.headers['x-forwarded-for']}`).toBe(404);
        expect(res.json()).toEqual({ error: 'Not found', code: 'not_found' });
        stolenToken ??= /reset-password\?token=([\w-]+)/.exec(res.body)?.[1];
      }
    }
    const page = await ctx.app.inject({
      method: 'GET',
      url: '/dev/mailbox',
      remoteAddress: '127.0.0.1',
      headers: { accept: 'text/html', 'x-forwarded-for': '203.0.113.9' },
    });
    expect(page.statusCode).toBe(404);

    // With no link the takeover stops here: the victim's password still works, the link is unused.
    expect(stolenToken).toBeUndefined();
    expect((await signIn(ctx, victim.email, PASSWORD, viaProxy('198.51.100.20'))).statusCode).toBe(200);
    const links = await ctx.db
      .selectFrom('tokens')
      .select('used_at')
      .where('user_id', '=', victim.userId)
      .where('purpose', '=', 'reset')
      .execute();
    expect(links).toHaveLength(1);
    expect(links[0]!.used_at).toBeNull();
  });

  it('with a public PUBLIC_URL the mailbox is closed even to this machine unless DEV_MAILBOX=on says so', async () => {
    const local = await ctx.app.inject({ method: 'GET', url: '/api/dev/mailbox' });
    expect(local.statusCode).toBe(404);

    const opened = await createTestContext({
      env: { PUBLIC_URL: `https://${PUBLIC_HOST}`, TRUST_PROXY: '1', DEV_MAILBOX: 'on' },
      deps: { mailCatcher: true },
    });
    try {
      const here = await opened.app.inject({ method: 'GET', url: '/api/dev/mailbox' });
      expect(here.statusCode).toBe(200);
      // Still never through the proxy, whatever the client writes.
      for (const request of [viaProxy('203.0.113.9'), viaProxy('203.0.113.9', '127.0.0.1')]) {
        const res = await opened.app.inject({ method: 'GET', url: '/api/dev/mailbox', ...request });
        expect(res.statusCode).toBe(404);
      }
    } finally {
      await opened.close();
    }
  });
});

describe('the mail catcher on a loopback PUBLIC_URL', () => {
  it('answers a proxied client only when the proxy says it is local, and never with DEV_MAILBOX=off', async () => {
    const ctx = await createTestContext({ env: { TRUST_PROXY: '1' }, deps: { mailCatcher: true } });
    const off = await createTestContext({ env: { DEV_MAILBOX: 'off' }, deps: { mailCatcher: true } });
    try {
      expect((await ctx.app.inject({ method: 'GET', url: '/api/dev/mailbox' })).statusCode).toBe(200);
      const local = await ctx.app.inject({
        method: 'GET',
        url: '/api/dev/mailbox',
        ...viaProxy('127.0.0.1'),
      });
      expect(local.statusCode).toBe(200);
      for (const request of [viaProxy('192.168.1.20'), viaProxy('203.0.113.9', '127.0.0.1')]) {
        const res = await ctx.app.inject({ method: 'GET', url: '/api/dev/mailbox', ...request });
        expect(res.statusCode, request.headers['x-forwarded-for']).toBe(404);
      }
      expect((await off.app.inject({ method: 'GET', url: '/api/dev/mailbox' })).statusCode).toBe(404);
    } finally {
      await Promise.all([ctx.close(), off.close()]);
    }
  });
});

describe('Host allowlist', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { PUBLIC_URL: `https://${PUBLIC_HOST}` } });
  });
  afterAll(async () => ctx?.close());

  it('every route, page and unknown path answers 421 in the error shape to a Host that is not PUBLIC_URL’s', async () => {
    const urls = [
      ...ctx.app.routeTable.map((r) => ({
        method: r.method,
        url: r.url.replace(/:[a-zA-Z]+/g, randomUUID()),
      })),
      { method: 'GET', url: '/' },
      { method: 'GET', url: '/dev/mailbox' },
      { method: 'GET', url: '/no/such/page' },
      { method: 'GET', url: '/api/no-such-route' },
    ];
    for (const host of [
      'attacker.example',
      `${PUBLIC_HOST}:8443`,
      `${PUBLIC_HOST}.attacker.example`,
      'localhost',
      '127.0.0.1:443',
    ]) {
      for (const { method, url } of urls) {
        const res = await ctx.app.inject({
          method: method as 'GET',
          url,
          headers: { host, accept: 'text/html' },
        });
        const where = `${host} ${method} ${url}`;
        expect(res.statusCode, where).toBe(421);
        expect(res.json(), where).toEqual({
          error: 'This server does not answer for that host name',
          code: 'misdirected_request',
        });
        expect(res.headers['content-security-policy'], where).toContain("frame-ancestors 'none'");
      }
    }
  });

  it("accepts PUBLIC_URL's host in any case, with or without its default port", async () => {
    for (const host of [PUBLIC_HOST, `${PUBLIC_HOST}:443`, PUBLIC_HOST.toUpperCase()]) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/health', headers: { host } });
      expect(res.statusCode, host).toBe(200);
    }
  });

  it('a DNS-rebinding page cannot read the mailbox of a default install; loopback names with its port can', async () => {
    const local = await createTestContext({
      env: { PUBLIC_URL: 'http://localhost:3000', PORT: '4968' },
      deps: { mailCatcher: true },
    });
    try {
      for (const host of [
        'rebind.attacker.example:3000',
        'rebind.attacker.example',
        'localhost:5173',
        '0.0.0.0:3000',
      ]) {
        const res = await local.app.inject({ method: 'GET', url: '/api/dev/mailbox', headers: { host } });
        expect(res.statusCode, host).toBe(421);
      }
      // PUBLIC_URL's port, and the port the app listens on.
      for (const host of [
        'localhost:3000',
        '127.0.0.1:3000',
        '[::1]:3000',
        '127.0.0.1:4968',
        'localhost:4968',
      ]) {
        const res = await local.app.inject({ method: 'GET', url: '/api/dev/mailbox', headers: { host } });
        expect(res.statusCode, host).toBe(200);
      }
    } finally {
      await local.close();
    }
  });

  it('takes the host from X-Forwarded-Host only when a trusted proxy sent it', async () => {
    const proxied = await createTestContext({
      env: { PUBLIC_URL: `https://${PUBLIC_HOST}`, TRUST_PROXY: '127.0.0.1' },
    });
    try {
      const forwarded = { host: '127.0.0.1:3000', 'x-forwarded-host': PUBLIC_HOST };
      const fromProxy = await proxied.app.inject({ method: 'GET', url: '/api/health', headers: forwarded });
      expect(fromProxy.statusCode).toBe(200);
      const direct = await proxied.app.inject({
        method: 'GET',
        url: '/api/health',
        remoteAddress: '192.0.2.50',
        headers: forwarded,
      });
      expect(direct.statusCode).toBe(421);
      const untrusted = await ctx.app.inject({ method: 'GET', url: '/api/health', headers: forwarded });
      expect(untrusted.statusCode).toBe(421);
    } finally {
      await proxied.close();
    }
  });
});

describe('TRUST_PROXY', () => {
  it('a forged left-most X-Forwarded-For does not get around the per-IP sign-in limit', async () => {
    const ctx = await createTestContext({ env: { TRUST_PROXY: '1', CAPTCHA_PROVIDER: 'none' } });
    try {
      // 30 failed sign-ins per IP in 15 minutes, each against another account, each with a new forged address.
      const attempt = (i: number) =>
        signIn(
          ctx,
          uniqueEmail('spray'),
          'wrong password',
          viaProxy('198.51.100.7', `10.9.${i >> 8}.${i & 255}`),
        );
      for (let i = 0; i < 30; i++) expect((await attempt(i)).statusCode).toBe(401);
      const blocked = await attempt(30);
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().code).toBe('rate_limited');
      // Another client behind the same proxy is not blocked.
      const other = await signIn(
        ctx,
        uniqueEmail('other'),
        'wrong password',
        viaProxy('198.51.100.8', '198.51.100.7'),
      );
      expect(other.statusCode).toBe(401);
    } finally {
      await ctx.close();
    }
  });

  it('sessions record the address the proxy saw, not the one the client wrote', async () => {
    const ctx = await createTestContext({ env: { TRUST_PROXY: '127.0.0.1', CAPTCHA_PROVIDER: 'none' } });
    try {
      const account = await signUp(ctx);
      await ctx.db.deleteFrom('sessions').execute();
      expect(
        (await signIn(ctx, account.email, PASSWORD, viaProxy('198.51.100.23', '6.6.6.6'))).statusCode,
      ).toBe(200);
      // Not from the trusted proxy: X-Forwarded-For is ignored altogether.
      const direct = await signIn(ctx, account.email, PASSWORD, {
        remoteAddress: '192.0.2.44',
        headers: { 'x-forwarded-for': '6.6.6.6' },
      });
      expect(direct.statusCode).toBe(200);
      const ips = await ctx.db.selectFrom('sessions').select('ip').orderBy('created_at').execute();
      expect(ips.map((r) => r.ip).sort()).toEqual(['192.0.2.44', '198.51.100.23']);
    } finally {
      await ctx.close();
    }
  });
});
