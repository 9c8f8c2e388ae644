import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { startFakeGitHub, startFakeGoogle, type FakeGitHub, type FakeGoogle } from '../support/fake-oauth.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, PASSWORD, type TestUser } from '../support/users.ts';

/**
 * Threat tests of docs/architecture.md §6 that walk the whole API. Run together with the log-redaction and
 * hostile-HTML suites by `npm run test:security`, which prints them as a checklist.
 */

const PUBLIC_URL = 'https://proofmail.test';

let ctx: TestContext;
// Local providers: the app never talks to the real ones, even if a check below were broken.
let google: FakeGoogle;
let github: FakeGitHub;
let owner: TestUser;
let intruder: TestUser;
let emailId: string;

beforeAll(async () => {
  google = await startFakeGoogle();
  github = await startFakeGitHub();
  ctx = await createTestContext({ env: { PUBLIC_URL, ...google.env, ...github.env } });
  owner = await createUser(ctx.db, { plan: 'pro' });
  intruder = await createUser(ctx.db, { plan: 'pro' });
  emailId = (
    await insertEmail(ctx.db, {
      userId: owner.user.id,
      to: 'client@example.com',
      subject: 'Private',
      html: '<p>private</p>',
      inlineCss: false,
      createdAt: new Date(),
    })
  ).id;
});
afterAll(async () => {
  await ctx?.close();
  await google?.stop();
  await github?.stop();
});

const fill = (url: string, id: string) => url.replace(/:[a-zA-Z]+/g, id);

describe('security headers on every route', () => {
  it('every API route answers with a policy under which nothing loads, nosniff and no framing, even on errors', async () => {
    const routes = ctx.app.routeTable;
    expect(routes.length).toBeGreaterThan(20);
    for (const route of routes) {
      const res = await ctx.app.inject({ method: route.method as 'GET', url: fill(route.url, randomUUID()) });
      const csp = String(res.headers['content-security-policy'] ?? '');
      const where = `${route.method} ${route.url} (${res.statusCode})`;
      // Data, never a document (docs/decisions/0091-api-answer-headers.md).
      expect(csp.split('; ')[0], where).toBe("default-src 'none'");
      expect(csp, where).not.toMatch(/'self'|https?:|'unsafe/);
      expect(csp, where).toContain("base-uri 'none'");
      expect(csp, where).toContain("frame-ancestors 'none'");
      expect(res.headers['x-content-type-options'], where).toBe('nosniff');
      expect(res.headers['x-frame-options'], where).toBe('DENY');
      expect(res.headers['cross-origin-resource-policy'], where).toBe('same-origin');
      expect(res.headers['referrer-policy'], where).toBe('no-referrer');
    }
  });

  it('every page answers with the full set: CSP, Permissions-Policy, COOP, nosniff, no framing', async () => {
    for (const url of ['/', '/signup', '/app/history', '/s/some-slug', '/no-such-page']) {
      const res = await ctx.app.inject({ method: 'GET', url });
      const csp = String(res.headers['content-security-policy'] ?? '');
      expect(csp, url).toContain("script-src 'self'");
      expect(csp, url).toContain("object-src 'none'");
      expect(csp, url).toContain("base-uri 'none'");
      expect(csp, url).toContain("frame-ancestors 'none'");
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['x-frame-options'], url).toBe('DENY');
      expect(res.headers['referrer-policy'], url).toBeTruthy();
      expect(res.headers['permissions-policy'], url).toContain('camera=()');
      expect(res.headers['permissions-policy'], url).toContain('geolocation=()');
      expect(res.headers['cross-origin-opener-policy'], url).toBe('same-origin');
    }
  });

  it('a path only looks like the API when it is under /api/: pages around it keep the page headers', async () => {
    for (const [url, api] of [
      ['/api/health', true],
      ['/api/health?x=/app', true],
      ['/api/no-such-thing', true],
      ['/apistuff', false],
      ['/app/api/health', false],
      ['/s/api', false],
    ] as const) {
      const res = await ctx.app.inject({ method: 'GET', url });
      expect(String(res.headers['content-security-policy']).startsWith("default-src 'none'"), url).toBe(api);
      expect(res.headers['permissions-policy'] === undefined, url).toBe(api);
    }
  });

  it('no API answer may be stored by a browser, proxy or CDN: Cache-Control no-store, with or without a session', async () => {
    // GET /api/config is the same for everyone and says so (no-cache); everything else is personal or says what exists.
    const personal = ctx.app.routeTable.filter((r) => !(r.method === 'GET' && r.url === '/api/config'));
    for (const signedIn of [false, true]) {
      for (const route of personal) {
        // A throwaway user each time: some of these routes sign out or delete.
        const headers = signedIn ? (await createUser(ctx.db, { plan: 'pro' })).headers : {};
        const res = await ctx.app.inject({
          method: route.method as 'GET',
          url: fill(route.url, randomUUID()),
          headers,
        });
        expect(res.headers['cache-control'], `${route.method} ${route.url} (${res.statusCode})`).toBe(
          'no-store',
        );
      }
    }
    for (const url of ['/api/no-such-route', '/api/user/usage', '/api/email', `/api/email/${emailId}`]) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: owner.headers });
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
  });

  it('public share responses are noindex and no-referrer, found or not', async () => {
    for (const slug of ['does-not-exist-0000000000', 'x']) {
      for (const [method, path, payload] of [
        ['GET', '', undefined],
        ['POST', '/unlock', { password: 'guess' }],
        ['POST', '/reviews', { name: 'A', decision: 'approved', version: 1 }],
      ] as const) {
        const res = await ctx.app.inject({ method, url: `/api/email/public/${slug}${path}`, payload });
        expect(res.headers['x-robots-tag'], `${method} ${path}`).toContain('noindex');
        expect(res.headers['referrer-policy'], `${method} ${path}`).toBe('no-referrer');
      }
    }
  });
});

describe('IDOR across every authenticated route', () => {
  it("no route with an id lets another user read or change the owner's email", async () => {
    const withId = ctx.app.routeTable.filter((r) => r.url.includes(':id'));
    expect(withId.length).toBeGreaterThanOrEqual(4);
    for (const route of withId) {
      const res = await ctx.app.inject({
        method: route.method as 'GET',
        url: fill(route.url, emailId),
        headers: intruder.headers,
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(404);
      expect(res.body).not.toContain('private');
    }
    const row = await ctx.db
      .selectFrom('emails')
      .selectAll()
      .where('id', '=', emailId)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ subject: 'Private' });
    const shares = await ctx.db
      .selectFrom('email_shares')
      .selectAll()
      .where('thread_id', '=', emailId)
      .execute();
    expect(shares).toEqual([]);
  });

  it('every route that needs a session answers 401 without one and with a forged or revoked token', async () => {
    // Public by design; /api/dev/* answers loopback clients only (and only with the catcher on).
    const open =
      /^(GET|DELETE) \/api\/dev\/|^GET \/api\/(health|config|openapi\.json|email\/public\/:slug|auth\/(google|github)(\/callback)?|auth\/captcha\/challenge)$|^POST \/api\/(auth\/(signup|signin|verify-email|request-password-reset|reset-password|exchange|cancel-email-change)|billing\/webhook|email\/public\/:slug\/(unlock|reviews))$/;
    const needSession = ctx.app.routeTable.filter((r) => !open.test(`${r.method} ${r.url}`));
    expect(needSession.length).toBeGreaterThan(10);
    const revoked = await createUser(ctx.db);
    await ctx.db.deleteFrom('sessions').where('user_id', '=', revoked.user.id).execute();
    for (const headers of [{}, { authorization: `Bearer ${'x'.repeat(43)}` }, revoked.headers]) {
      for (const route of needSession) {
        const res = await ctx.app.inject({
          method: route.method as 'GET',
          url: fill(route.url, emailId),
          headers,
        });
        expect(res.statusCode, `${route.method} ${route.url}`).toBe(401);
      }
    }
  });
});

describe('open redirects', () => {
  it('OAuth start ignores redirect parameters and only ever sends the browser to the provider with our callback', async () => {
    for (const provider of ['google', 'github']) {
      const res = await ctx.app.inject({
        method: 'GET',
        url: `/api/auth/${provider}?redirect_uri=https://evil.example/cb&next=//evil.example&returnTo=https://evil.example`,
      });
      expect(res.statusCode).toBe(302);
      const location = new URL(String(res.headers.location));
      expect(location.searchParams.get('redirect_uri')).toBe(`${PUBLIC_URL}/api/auth/${provider}/callback`);
      expect(String(res.headers.location)).not.toContain('evil.example');
    }
  });

  it('OAuth callbacks only ever redirect to our own /auth/callback page, with an error code of ours', async () => {
    // Each hostile callback, and the error code the page must get: the provider's own code when
    // it is a plain word, else auth_failed. Nothing else from the request reaches the redirect.
    const attempts: Array<[query: string, error: string]> = [
      ['?error=access_denied&redirect_uri=https://evil.example', 'access_denied'],
      ['?error=%0d%0aLocation:%20https://evil.example', 'auth_failed'],
      ['?code=abc&state=forged', 'auth_failed'],
      ['?code=abc&state=forged&next=https://evil.example', 'auth_failed'],
      ['', 'auth_failed'],
    ];
    for (const provider of ['google', 'github']) {
      for (const [query, error] of attempts) {
        const res = await ctx.app.inject({ method: 'GET', url: `/api/auth/${provider}/callback${query}` });
        const where = `${provider} callback${query}`;
        expect(res.statusCode, where).toBe(302);
        const location = new URL(String(res.headers.location));
        expect(`${location.origin}${location.pathname}`, where).toBe(`${PUBLIC_URL}/auth/callback`);
        expect(Object.fromEntries(location.searchParams), where).toEqual({ error, provider });
      }
    }
  });

  it('sign-in takes no redirect target from the request, whether it succeeds or fails', async () => {
    const account = await createUser(ctx.db, { password: PASSWORD });
    for (const [password, status] of [
      [PASSWORD, 200],
      ['a wrong password', 401],
    ] as const) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/signin?next=https://evil.example&redirect_uri=https://evil.example',
        payload: { email: account.user.email, password },
      });
      expect(res.statusCode, res.body).toBe(status);
      expect(res.headers.location).toBeUndefined();
      expect(res.body).not.toContain('evil.example');
    }
  });
});

describe('oversized bodies', () => {
  it('every body-taking route rejects a 3 MB body with 413 and the JSON error shape', async () => {
    const big = JSON.stringify({ html: 'x'.repeat(3 * 1024 * 1024 + 10), to: 'a@example.com' });
    const posting = ctx.app.routeTable.filter((r) => r.method === 'POST' || r.method === 'PATCH');
    expect(posting.length).toBeGreaterThan(10);
    for (const route of posting) {
      const res = await ctx.app.inject({
        method: route.method as 'POST',
        url: fill(route.url, emailId),
        headers: { ...owner.headers, 'content-type': 'application/json' },
        payload: big,
      });
      expect(res.statusCode, `${route.method} ${route.url}`).toBe(413);
      expect(typeof res.json().error).toBe('string');
    }
  });

  it('caps email HTML at 1 MB with a clear message', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: owner.headers,
      payload: { to: 'a@example.com', html: 'y'.repeat(1024 * 1024 + 1) },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json().error).toContain('1 MB');
  });
});

describe("the framework's own refusals", () => {
  it('an over-long or malformed URL answers in the error shape, with the security headers, and never echoes the path', async () => {
    const cases = [
      { url: `/api/email/${'evil'.repeat(60)}`, status: 414, code: 'uri_too_long' },
      { url: '/api/email/%zzevil', status: 400, code: 'bad_url' },
      { url: '/evil%E0%A4%A', status: 400, code: 'bad_url' },
    ];
    for (const { url, status, code } of cases) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: owner.headers });
      expect(res.statusCode, url).toBe(status);
      expect(Object.keys(res.json()).sort(), url).toEqual(['code', 'error']);
      expect(res.json().code, url).toBe(code);
      expect(res.body, url).not.toContain('evil');
      expect(res.headers['content-security-policy'], url).toContain("frame-ancestors 'none'");
      expect(res.headers['cache-control'], url).toBe('no-store');
    }
  });

  it('a request Node cannot parse gets the error shape too, not a framework message', async () => {
    await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = ctx.app.server.address() as { port: number };
    const raw = (request: string) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(request));
        let answer = '';
        socket.on('data', (chunk) => (answer += chunk.toString()));
        socket.on('close', () => resolve(answer));
        socket.on('error', reject);
      });
    const malformed = await raw('GET /evil HTTP/1.1\r\nHost: proofmail.test\r\nno colon here\r\n\r\n');
    const tooLarge = await raw(
      `GET /evil HTTP/1.1\r\nHost: proofmail.test\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    for (const [answer, status, code] of [
      [malformed, 400, 'bad_request'],
      [tooLarge, 431, 'headers_too_large'],
    ] as const) {
      expect(answer.startsWith(`HTTP/1.1 ${status} `), answer).toBe(true);
      const [head = '', body = ''] = answer.split('\r\n\r\n');
      expect(JSON.parse(body)).toEqual({ error: expect.any(String), code });
      expect(body).not.toContain('evil');
      expect(head.toLowerCase()).toContain('x-content-type-options: nosniff');
      expect(head.toLowerCase()).toContain("frame-ancestors 'none'");
    }
  });
});
