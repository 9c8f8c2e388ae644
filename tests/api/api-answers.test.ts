import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * How the API answers a request it does not take at all: a method an address does not have is a
 * 405 naming the ones it has (src/server/http/method-not-allowed.ts), and a query parameter given
 * twice is a 400 naming it (src/server/http/well-formed-text.ts), on every route alike.
 */

let ctx: TestContext;
let pro: TestUser;

beforeAll(async () => {
  ctx = await createTestContext({ env: { FREE_SENDS_PER_MINUTE: '1000' } });
  pro = await createUser(ctx.db, { plan: 'pro' });
});
afterAll(async () => ctx?.close());

describe('a method the address does not take', () => {
  const call = (method: string, url: string, headers: Record<string, string> = pro.headers) =>
    ctx.app.inject({ method: method as 'GET', url, headers });

  it('is a 405 with the methods it takes in Allow, signed in or not', async () => {
    const id = randomUUID();
    for (const [method, url, allow] of [
      ['PUT', `/api/email/${id}`, 'GET, HEAD, DELETE'],
      ['PATCH', `/api/email/${id}`, 'GET, HEAD, DELETE'],
      ['POST', `/api/email/${id}`, 'GET, HEAD, DELETE'],
      ['DELETE', '/api/keys', 'GET, HEAD, POST'],
      ['GET', '/api/auth/signin', 'POST'],
      ['PUT', '/api/email/shared', 'GET, HEAD, DELETE'],
      ['GET', `/api/email/${id}/share/rotate`, 'POST'],
      ['PUT', '/api/user/settings/', 'GET, HEAD, PATCH'],
    ] as const) {
      for (const [who, headers] of [
        ['signed in', pro.headers],
        ['anonymous', {}],
      ] as const) {
        const res = await call(method, url, headers);
        const what = `${method} ${url} ${who}`;
        expect(res.statusCode, what).toBe(405);
        expect(res.headers.allow, what).toBe(allow);
        expect(res.json(), what).toEqual({
          error: `Method not allowed: this address takes ${allow}.`,
          code: 'method_not_allowed',
        });
        expect(res.headers['cache-control'], what).toBe('no-store');
      }
    }
  });

  it('is a 405 where the address is a fixed one and another route would take its name as an id', async () => {
    // GET /api/email/:id would take "send" as an email id; the address is POST /api/email/send.
    for (const [method, url, allow] of [
      ['GET', '/api/email/send', 'POST'],
      ['DELETE', '/api/email/send', 'POST'],
      ['GET', '/api/email/preview', 'POST'],
      ['GET', '/api/email/send/', 'POST'],
    ] as const) {
      const res = await call(method, url);
      expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(405);
      expect(res.headers.allow, `${method} ${url}`).toBe(allow);
    }
  });

  it('leaves the routes that do take the method, and addresses that do not exist, as they were', async () => {
    expect((await call('GET', '/api/email/shared')).statusCode).toBe(200);
    const missing = await call('GET', `/api/email/${randomUUID()}`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toBe('Email not found');
    const nowhere = await call('PUT', '/api/nothing/here');
    expect(nowhere.statusCode).toBe(404);
    expect(nowhere.json()).toEqual({ error: 'Not found', code: 'not_found' });
    // The dev mailbox says nothing to anyone it does not answer (docs/decisions/0029-dev-mailbox-local-clients-only.md).
    for (const method of ['PUT', 'POST', 'PATCH']) {
      const res = await call(method, '/api/dev/mailbox', {});
      expect(res.statusCode, method).toBe(404);
      expect(res.headers.allow, method).toBeUndefined();
    }
  });
});

describe('a query parameter given twice', () => {
  it('is a 400 naming it, on every route with a query', async () => {
    const slug = 'no-such-link-0123456789';
    for (const [url, name] of [
      ['/api/email?limit=5&limit=6', 'limit'],
      ['/api/email?q=a&q=b', 'q'],
      ['/api/email?cursor=a&limit=5&cursor=b', 'cursor'],
      [`/api/email/${randomUUID()}/message.eml?delivery=a&delivery=b`, 'delivery'],
      [`/api/email/${randomUUID()}/export.png?width=320&width=640`, 'width'],
      [`/api/email/public/${slug}?v=1&v=2`, 'v'],
    ] as const) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: pro.headers });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toEqual({
        error: `${name} is given more than once: give it once.`,
        code: 'repeated_parameter',
      });
    }
    // Once is fine.
    expect(
      (await ctx.app.inject({ method: 'GET', url: '/api/email?limit=5', headers: pro.headers })).statusCode,
    ).toBe(200);
  });
});

describe('a required field left out', () => {
  it('is answered as the same field left empty, with its message and code (src/shared/contract/common.ts whenAbsent)', async () => {
    const user = await createUser(ctx.db, { plan: 'pro' });
    const post = (url: string, payload: object, headers: Record<string, string> = {}) =>
      ctx.app.inject({ method: 'POST', url, headers, payload });
    const cases: [string, object, object, Record<string, string>?][] = [
      ['/api/auth/request-password-reset', {}, { email: '' }],
      ['/api/auth/reset-password', { token: 'abc' }, { token: 'abc', newPassword: '' }],
      [
        '/api/user/change-email',
        { currentPassword: 'x' },
        { newEmail: '', currentPassword: 'x' },
        user.headers,
      ],
      ['/api/keys', {}, { name: '' }, user.headers],
    ];
    for (const [url, leftOut, empty, headers] of cases) {
      const absent = await post(url, leftOut, headers);
      const blank = await post(url, empty, headers);
      expect(absent.statusCode, url).toBe(400);
      expect(absent.json(), url).toEqual(blank.json());
      expect(absent.json().error, url).not.toMatch(/received undefined/);
    }
  });
});
