import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertApiKey } from '../../src/server/accounts/api-keys.repo.ts';
import { newApiKey } from '../../src/server/accounts/api-keys.ts';
import { API_KEY_MESSAGES, MAX_API_KEYS } from '../../src/shared/contract/api-keys.ts';
import { issueToken } from '../../src/server/accounts/account-mail.ts';
import { mailTo } from '../support/auth-api.ts';
import { freePort } from '../support/free-port.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, PASSWORD, type TestUser } from '../support/users.ts';

/**
 * Personal API keys (docs/decisions/0073-personal-api-keys.md): create once, list without the key,
 * revoke; a key acts as its owner on the routes marked API_KEY_ROUTE and nowhere else.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ env: { FREE_MONTHLY_LIMIT: '3', FREE_SENDS_PER_MINUTE: '1000' } });
  ctx.clock.set(new Date('2026-03-15T12:00:00Z'));
});
afterAll(async () => ctx?.close());

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const create = (u: TestUser | undefined, payload: unknown) =>
  ctx.app.inject({ method: 'POST', url: '/api/keys', headers: u?.headers, payload: payload as object });
async function newKey(u: TestUser, name = 'CI'): Promise<{ id: string; key: string; prefix: string }> {
  const res = await create(u, { name });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}
const fill = (url: string, id: string) => url.replace(/:[a-zA-Z]+/g, id);

describe('POST /api/keys', () => {
  it('answers the key once (pm_ and 43 base64url characters) and stores only its SHA-256', async () => {
    const alice = await createUser(ctx.db);
    const res = await create(alice, { name: '  GitHub Actions  ' });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      id: expect.any(String),
      name: 'GitHub Actions',
      key: expect.stringMatching(/^pm_[A-Za-z0-9_-]{43}$/),
      prefix: body.key.slice(0, 9),
      createdAt: '2026-03-15T12:00:00.000Z',
    });
    const row = await ctx.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', body.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash.toString('hex')).toHaveLength(64);
    expect(JSON.stringify(row)).not.toContain(body.key.slice(9));
    expect(row.user_id).toBe(alice.user.id);
  });

  it('names each validation problem and creates nothing', async () => {
    const bob = await createUser(ctx.db);
    const cases: [unknown, number, string][] = [
      [{ name: '' }, 400, API_KEY_MESSAGES.nameRequired],
      [{ name: '   ' }, 400, API_KEY_MESSAGES.nameRequired],
      [{ name: 'x'.repeat(65) }, 400, API_KEY_MESSAGES.nameTooLong],
      [{ name: 'deploy\r\nThis key was created by you.' }, 400, API_KEY_MESSAGES.nameCharacters],
      [{ name: 'build\u202egnp.exe' }, 400, API_KEY_MESSAGES.nameCharacters],
      [{ name: 'tab\there' }, 400, API_KEY_MESSAGES.nameCharacters],
      [{}, 400, API_KEY_MESSAGES.nameRequired],
      [{ name: 'ok', key: 'pm_mine' }, 400, ''],
    ];
    for (const [payload, status, message] of cases) {
      const res = await create(bob, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(status);
      expect(res.json().error).toContain(message);
    }
    const list = await ctx.app.inject({ method: 'GET', url: '/api/keys', headers: bob.headers });
    expect(list.json().items).toEqual([]);
  });

  it('tells the owner by mail, naming the key, so that a key made with a stolen session is seen', async () => {
    const ivy = await createUser(ctx.db);
    const { prefix, key } = await newKey(ivy, 'Deploy <bot>');
    const notices = (await mailTo(ctx, ivy.user.email)).filter((m) => m.subject.includes('API key'));
    expect(notices).toHaveLength(1);
    expect(notices[0]!.subject).toBe('A new API key was created for your Proofmail account');
    expect(notices[0]!.text).toContain('An API key named "Deploy <bot>" was just created for your account.');
    expect(notices[0]!.text).toContain(`${prefix}…`);
    expect(notices[0]!.html).toContain('&quot;Deploy &lt;bot&gt;&quot;');
    expect(notices[0]!.html + notices[0]!.text).not.toContain(key.slice(9));
  });

  it('refuses an account that has not verified its address: 403, and nothing is created or mailed', async () => {
    const squatter = await createUser(ctx.db, { verified: false });
    const res = await create(squatter, { name: 'Backup' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: API_KEY_MESSAGES.verifyFirst, code: 'email_unverified' });
    const list = await ctx.app.inject({ method: 'GET', url: '/api/keys', headers: squatter.headers });
    expect(list.json().items).toEqual([]);
    expect(await mailTo(ctx, squatter.user.email)).toEqual([]);
  });

  it(`caps an account at ${MAX_API_KEYS} keys with a clear 409`, async () => {
    const carol = await createUser(ctx.db);
    for (let i = 0; i < MAX_API_KEYS; i++) await newKey(carol, `key ${i}`);
    const res = await create(carol, { name: 'one more' });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ error: API_KEY_MESSAGES.tooMany, code: 'too_many_api_keys' });
  });

  it('needs a session: 401 without one', async () => {
    for (const [method, url] of [
      ['POST', '/api/keys'],
      ['GET', '/api/keys'],
      ['DELETE', `/api/keys/${randomUUID()}`],
    ] as const) {
      const res = await ctx.app.inject({
        method,
        url,
        payload: method === 'POST' ? { name: 'x' } : undefined,
      });
      expect(res.statusCode, url).toBe(401);
    }
  });
});

describe('GET /api/keys and DELETE /api/keys/{id}', () => {
  it('lists name, prefix, created and last used, newest first, never the key or its hash', async () => {
    const dave = await createUser(ctx.db);
    const first = await newKey(dave, 'first');
    ctx.clock.advance(1000);
    const second = await newKey(dave, 'second');
    const res = await ctx.app.inject({ method: 'GET', url: '/api/keys', headers: dave.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json().items).toEqual([
      {
        id: second.id,
        name: 'second',
        prefix: second.prefix,
        createdAt: expect.any(String),
        lastUsedAt: null,
      },
      { id: first.id, name: 'first', prefix: first.prefix, createdAt: expect.any(String), lastUsedAt: null },
    ]);
    expect(res.body).not.toContain(first.key);
    expect(res.body).not.toContain(second.key);
    expect(res.body).not.toMatch(/hash/i);
  });

  it("revokes a key: it then answers 401 invalid_api_key; another user's key answers 404 like a missing one", async () => {
    const erin = await createUser(ctx.db);
    const frank = await createUser(ctx.db);
    const key = await newKey(erin);
    expect(
      (await ctx.app.inject({ method: 'GET', url: '/api/user/me', headers: bearer(key.key) })).statusCode,
    ).toBe(200);

    for (const id of [key.id, randomUUID(), 'not-a-uuid']) {
      const res = await ctx.app.inject({ method: 'DELETE', url: `/api/keys/${id}`, headers: frank.headers });
      expect(res.statusCode, id).toBe(404);
      expect(res.json()).toEqual({ error: API_KEY_MESSAGES.notFound, code: 'api_key_not_found' });
    }
    expect(
      (await ctx.app.inject({ method: 'GET', url: '/api/user/me', headers: bearer(key.key) })).statusCode,
    ).toBe(200);

    const revoke = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/keys/${key.id}`,
      headers: erin.headers,
    });
    expect(revoke.statusCode).toBe(200);
    expect(revoke.json()).toEqual({ ok: true });
    const after = await ctx.app.inject({ method: 'GET', url: '/api/user/me', headers: bearer(key.key) });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toEqual({ error: API_KEY_MESSAGES.invalidKey, code: 'invalid_api_key' });
    const again = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/keys/${key.id}`,
      headers: erin.headers,
    });
    expect(again.statusCode).toBe(404);
  });
});

describe('a key acts as its owner', () => {
  it('sends as the owner, within the owner’s plan limit, and the emails are the owner’s', async () => {
    const gina = await createUser(ctx.db);
    const { key } = await newKey(gina);
    const sent: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/email/send',
        headers: bearer(key),
        payload: { to: 'a@example.com', subject: `Key ${i}`, html: '<p>Hi</p>' },
      });
      expect(res.statusCode, res.body).toBe(200);
      sent.push(res.json().id);
    }
    const over = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: bearer(key),
      payload: { to: 'a@example.com', html: '<p>Hi</p>' },
    });
    expect(over.statusCode).toBe(429); // FREE_MONTHLY_LIMIT=3, counted for the owner
    for (const id of sent) {
      const res = await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: gina.headers });
      expect(res.statusCode).toBe(200);
    }
    const usage = await ctx.app.inject({ method: 'GET', url: '/api/user/usage', headers: bearer(key) });
    expect(usage.json().usage.emailsThisMonth).toBe(3);
  });

  it('an unverified owner cannot send with a key, as with a session', async () => {
    const hank = await createUser(ctx.db, { verified: false });
    // A key made before keys needed a verified address.
    const { key, hash, prefix } = newApiKey();
    await insertApiKey(ctx.db, {
      userId: hank.user.id,
      name: 'Old',
      keyHash: hash,
      prefix,
      now: ctx.clock.now(),
    });
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: bearer(key),
      payload: { to: 'a@example.com', html: '<p>Hi</p>' },
    });
    const bySession = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: hank.headers,
      payload: { to: 'a@example.com', html: '<p>Hi</p>' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual(bySession.json());
  });

  it('a bad key is a 401 invalid_api_key and never falls back to anything else', async () => {
    for (const key of ['pm_short', `pm_${'A'.repeat(43)}`, `pm_${'A'.repeat(44)}`]) {
      const res = await ctx.app.inject({ method: 'GET', url: '/api/user/me', headers: bearer(key) });
      expect(res.statusCode, key).toBe(401);
      expect(res.json()).toEqual({ error: API_KEY_MESSAGES.invalidKey, code: 'invalid_api_key' });
    }
  });

  it('writes last used at most once a minute per key', async () => {
    const ivy = await createUser(ctx.db);
    const { id, key } = await newKey(ivy);
    const lastUsed = async () =>
      (
        await ctx.db
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('id', '=', id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    const use = () => ctx.app.inject({ method: 'GET', url: '/api/user/me', headers: bearer(key) });
    const t0 = ctx.clock.now();
    expect((await use()).statusCode).toBe(200);
    expect(await lastUsed()).toEqual(t0);
    ctx.clock.advance(59_000);
    await use();
    expect(await lastUsed()).toEqual(t0);
    ctx.clock.advance(1_000);
    await use();
    expect(await lastUsed()).toEqual(ctx.clock.now());
    const listed = await ctx.app.inject({ method: 'GET', url: '/api/keys', headers: ivy.headers });
    expect(listed.json().items[0].lastUsedAt).toBe(ctx.clock.now().toISOString());
  });
});

describe('a key cannot change the account', () => {
  /** Every route that changes the account; a key must be refused on each, and none may be opened to keys. */
  const ACCOUNT_CHANGING =
    /^(POST|PATCH|DELETE) \/api\/(user\/|auth\/|billing\/|keys)|^GET \/api\/(keys|billing\/)|^(POST|DELETE|PATCH) \/api\/(account|sessions)/;

  it('walks the route table: routes not marked API_KEY_ROUTE answer a key 403, and no account-changing route is marked', async () => {
    const owner = await createUser(ctx.db, { password: PASSWORD });
    const { key } = await newKey(owner);
    const before = await ctx.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', owner.user.id)
      .executeTakeFirstOrThrow();
    const guarded = ctx.app.routeTable.filter((r) => !r.config?.public);
    const refused: string[] = [];
    for (const route of guarded) {
      const name = `${route.method} ${route.url}`;
      if (route.config?.apiKey) {
        expect(ACCOUNT_CHANGING.test(name), `${name} changes the account but is open to keys`).toBe(false);
        continue;
      }
      const res = await ctx.app.inject({
        method: route.method as 'GET',
        url: fill(route.url, randomUUID()),
        headers: bearer(key),
        payload: route.method === 'GET' || route.method === 'DELETE' ? undefined : {},
      });
      expect(res.statusCode, name).toBe(403);
      expect(res.json(), name).toEqual({ error: API_KEY_MESSAGES.accountOnly, code: 'api_key_not_allowed' });
      refused.push(name);
    }
    // The account-changing routes the product has today are all among them.
    for (const name of [
      'POST /api/user/change-email',
      'POST /api/user/change-password',
      'PATCH /api/user/settings',
      'POST /api/auth/signout',
      'POST /api/keys',
      'GET /api/keys',
      'DELETE /api/keys/:id',
      'POST /api/billing/create-checkout',
      'POST /api/billing/create-portal',
      'POST /api/billing/sync',
    ]) {
      expect(refused, name).toContain(name);
    }
    // Nothing changed: the refusal came before any work.
    const after = await ctx.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', owner.user.id)
      .executeTakeFirstOrThrow();
    expect(after).toEqual(before);
    expect(
      (await ctx.db.selectFrom('sessions').select('id').where('user_id', '=', owner.user.id).execute())
        .length,
    ).toBe(1);
    expect(
      (await ctx.db.selectFrom('api_keys').select('id').where('user_id', '=', owner.user.id).execute())
        .length,
    ).toBe(1);
  });

  it('says the same on the account routes that only read: a key may neither read nor change them', async () => {
    const owner = await createUser(ctx.db, { password: PASSWORD });
    const { key } = await newKey(owner);
    for (const url of [
      '/api/user/settings',
      '/api/billing/subscription',
      '/api/user/target-clients',
      '/api/keys',
    ]) {
      const res = await ctx.app.inject({ method: 'GET', url, headers: bearer(key) });
      expect(res.statusCode, url).toBe(403);
      expect(res.json(), url).toEqual({
        error:
          'API keys cannot read or change the account settings (email, password, API keys, billing, sessions, preferences). Sign in to the web app to do this.',
        code: 'api_key_not_allowed',
      });
    }
  });

  it('the refusal comes before validation, with a real body too', async () => {
    const owner = await createUser(ctx.db, { password: PASSWORD });
    const { key } = await newKey(owner);
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/user/change-password',
      headers: bearer(key),
      payload: { currentPassword: PASSWORD, newPassword: 'another long passphrase' },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toBe(API_KEY_MESSAGES.accountOnly);
  });
});

/**
 * The session is read when a request begins; a body sent slowly arrives later. A key must not be
 * made for a session that ended meanwhile (a password reset taking the account back).
 */
describe('a key asked for by a session that ends while its body arrives', () => {
  let live: TestContext;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    live = await createTestContext({ env: { PORT: String(port) } });
    await live.app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(async () => live?.close());

  it('is refused with a 401, and no key is made', async () => {
    const owner = await createUser(live.db, { password: PASSWORD });
    const body = JSON.stringify({ name: 'after-reset' });
    const socket = net.connect(port, '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const closed = once(socket, 'close');
    const seen = once(live.app.server, 'request');
    socket.write(
      `POST /api/keys HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${owner.token}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 5)}`,
    );
    await seen;
    // The owner takes the account back meanwhile.
    const reset = await issueToken(live.db, { userId: owner.user.id, purpose: 'reset', now: new Date() });
    const done = await live.app.inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: reset, newPassword: 'a brand new password' },
    });
    expect(done.statusCode).toBe(200);
    socket.write(body.slice(5));
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    const keys = await live.db
      .selectFrom('api_keys')
      .select('id')
      .where('user_id', '=', owner.user.id)
      .execute();
    expect(keys).toEqual([]);
  });
});
