import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SESSION_IDLE_MS, SESSION_TTL_MS } from '../../src/server/accounts/sessions.ts';
import { RATE_RULES } from '../../src/server/features/auth/rate-rules.ts';
import { runHousekeeping } from '../../src/server/housekeeping/housekeeping.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { bearer, expectNoSecrets, mailTo, signIn, signUp } from '../support/auth-api.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

describe('sign-up, sign-in, sessions', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: { CAPTCHA_PROVIDER: 'none', PUBLIC_URL: 'https://proofmail.test' },
    });
  });
  afterAll(async () => ctx?.close());

  describe('POST /api/auth/signup', () => {
    it('creates an unverified user, answers { user, token } and queues the verification mail', async () => {
      const email = uniqueEmail('new');
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email, password: PASSWORD },
      });
      expect(res.statusCode).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      const body = res.json();
      expect(Object.keys(body).sort()).toEqual(['token', 'user']);
      expect(body.user).toEqual({
        id: expect.any(String),
        email,
        verified: false,
        plan: 'free',
        createdAt: ctx.clock.now().toISOString(),
        subscriptionStatus: 'none',
        hasPassword: true,
      });
      expect(body.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expectNoSecrets(res, [PASSWORD]);

      const stored = await ctx.db
        .selectFrom('users')
        .selectAll()
        .where('id', '=', body.user.id)
        .executeTakeFirstOrThrow();
      expect(stored.password_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
      expect(stored.verified_at).toBeNull();
      // The session token is stored only as its SHA-256.
      const session = await ctx.db
        .selectFrom('sessions')
        .selectAll()
        .where('user_id', '=', body.user.id)
        .executeTakeFirstOrThrow();
      expect(session.token_hash.equals(createHash('sha256').update(body.token).digest())).toBe(true);

      const mail = await mailTo(ctx, email);
      expect(mail).toHaveLength(1);
      expect(mail[0]!.subject).toBe('Verify your email for Proofmail');
      expect(mail[0]!.priority).toBe(0);
      expect(mail[0]!.text).toMatch(/https:\/\/proofmail\.test\/verify\?token=[A-Za-z0-9_-]{43}/);
      expect(mail[0]!.html).toContain('https://proofmail.test/verify?token=');
    });

    it('the new session works for GET /api/auth/me', async () => {
      const { token, email } = await signUp(ctx);
      const me = await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) });
      expect(me.statusCode).toBe(200);
      expect(me.json().user.email).toBe(email);
      expectNoSecrets(me, [token]);
    });

    it.each([
      [{ email: '', password: PASSWORD }, 'Please fill in all fields'],
      [{ email: 'a@example.com', password: '' }, 'Please fill in all fields'],
      [{ email: '   ', password: '' }, 'Please fill in all fields'],
      // Left out is answered as left empty.
      [{ password: PASSWORD }, 'Please fill in all fields'],
      [{ email: 'a@example.com' }, 'Please fill in all fields'],
      [{}, 'Please fill in all fields'],
      // Of the wrong type, the field is named.
      [{ email: 42, password: PASSWORD }, 'email: Invalid input: expected string, received number'],
      [{ email: 'a@example.com', password: 'short12' }, 'Password must be at least 8 characters'],
      [{ email: 'not-an-email', password: PASSWORD }, 'Please enter a valid email address'],
      [{ email: 'Name <a@example.com>', password: PASSWORD }, 'Please enter a valid email address'],
    ])('rejects %j with "%s"', async (payload, message) => {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/signup', payload });
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe(message);
    });

    it('rejects passwords over 1,024 characters and unknown fields', async () => {
      const long = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email: uniqueEmail(), password: 'x'.repeat(1025) },
      });
      expect(long.statusCode).toBe(400);
      expect(long.json().error).toContain('Password must be at most 1024 characters');
      const extra = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email: uniqueEmail(), password: PASSWORD, plan: 'pro' },
      });
      expect(extra.statusCode).toBe(400);
    });

    it('accepts a password of exactly 8 and of 1,024 characters', async () => {
      for (const password of ['k7#mw2qz', 'p'.repeat(1024)]) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/api/auth/signup',
          payload: { email: uniqueEmail(), password },
        });
        expect(res.statusCode).toBe(200);
      }
    });

    it('answers 409 with a clear error for an existing email, whatever its case', async () => {
      const { email } = await signUp(ctx);
      for (const again of [email, email.toUpperCase(), `  ${email}  `]) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/api/auth/signup',
          payload: { email: again, password: PASSWORD },
        });
        expect(res.statusCode).toBe(409);
        expect(res.json()).toEqual({
          error: 'An account with this email already exists',
          code: 'email_taken',
        });
      }
    });

    it('limits sign-ups per IP with a 429 and a clear message', async () => {
      const ip = '203.0.113.50';
      const limit = RATE_RULES.signUpPerIp.limit;
      for (let i = 0; i < limit; i++) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/api/auth/signup',
          payload: { email: uniqueEmail('burst'), password: 'short' }, // invalid input is not counted
          remoteAddress: ip,
        });
        expect(res.statusCode).toBe(400);
      }
      for (let i = 0; i < limit; i++) {
        const res = await ctx.app.inject({
          method: 'POST',
          url: '/api/auth/signup',
          payload: { email: uniqueEmail('burst'), password: PASSWORD },
          remoteAddress: ip,
        });
        expect(res.statusCode).toBe(200);
      }
      const blocked = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email: uniqueEmail('burst'), password: PASSWORD },
        remoteAddress: ip,
      });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().error).toMatch(/^Too many sign-up attempts\. Try again in \d+ minutes?\.$/);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      // Another IP is unaffected.
      const other = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email: uniqueEmail('burst'), password: PASSWORD },
        remoteAddress: '203.0.113.51',
      });
      expect(other.statusCode).toBe(200);
    });
  });

  describe('POST /api/auth/signin', () => {
    it('answers { user, token } with a new session for the right password, any email case', async () => {
      const account = await signUp(ctx);
      const res = await signIn(ctx, account.email.toUpperCase());
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.user.email).toBe(account.email);
      expect(body.token).not.toBe(account.token);
      expectNoSecrets(res, [PASSWORD, account.token]);
      const me = await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(body.token) });
      expect(me.statusCode).toBe(200);
    });

    it('takes an internationalised domain in its ASCII form, for sign-up, sign-in and a reset alike', async () => {
      const local = uniqueEmail('ann').split('@')[0]!;
      const account = await signUp(ctx, `${local}@Bücher.example`);
      const ascii = `${local}@xn--bcher-kva.example`;
      const me = await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(account.token) });
      expect(me.json().user.email).toBe(ascii);
      expect((await mailTo(ctx, ascii)).map((m) => m.subject)).toEqual(['Verify your email for Proofmail']);
      for (const written of [`${local}@bücher.example`, ascii]) {
        const res = await signIn(ctx, written);
        expect(res.statusCode, written).toBe(200);
        expect(res.json().user.id).toBe(account.userId);
      }
      // The same account, whichever form it is written in.
      const again = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email: ascii, password: PASSWORD },
      });
      expect(again.statusCode).toBe(409);
      const reset = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/request-password-reset',
        payload: { email: `${local}@bücher.example` },
      });
      expect(reset.statusCode).toBe(200);
      expect((await mailTo(ctx, ascii)).map((m) => m.subject)).toContain('Reset your Proofmail password');
    });

    it('answers the same 401 for a wrong password and an unknown email', async () => {
      const account = await signUp(ctx);
      const wrong = await signIn(ctx, account.email, 'wrong password!');
      const unknown = await signIn(ctx, uniqueEmail('nobody'), 'wrong password!');
      for (const res of [wrong, unknown]) {
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: 'Invalid email or password', code: 'invalid_credentials' });
      }
    });

    it('asks for both fields, left empty or left out', async () => {
      for (const payload of [
        { email: '', password: PASSWORD },
        { email: 'a@example.com', password: '' },
        { password: PASSWORD },
        { email: 'a@example.com' },
        {},
      ]) {
        const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/signin', payload });
        expect([res.statusCode, res.json()], JSON.stringify(payload)).toEqual([
          400,
          { error: 'Please fill in all fields', code: 'missing_fields' },
        ]);
      }
    });

    it('limits failed attempts per IP across accounts', async () => {
      const ip = '192.0.2.77';
      const limit = RATE_RULES.signInPerIp.limit;
      for (let i = 0; i < limit; i++) {
        expect(
          (await signIn(ctx, uniqueEmail('spray'), 'guess-guess', { remoteAddress: ip })).statusCode,
        ).toBe(401);
      }
      const blocked = await signIn(ctx, uniqueEmail('spray'), 'guess-guess', { remoteAddress: ip });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().error).toMatch(
        /^Too many sign-in attempts\. Try again in (\d+ minutes|1 minute)\.$/,
      );
    });
  });

  describe('sessions', () => {
    it('GET /api/auth/me answers 401 without, with a malformed and with an unknown token', async () => {
      for (const headers of [
        {},
        { authorization: 'Bearer' },
        { authorization: 'Basic abc' },
        { authorization: 'Bearer not-a-token' },
        bearer('A'.repeat(43)),
      ]) {
        const res = await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers });
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ error: 'Not authenticated', code: 'unauthenticated' });
      }
    });

    it('POST /api/auth/signout revokes only the current session', async () => {
      const account = await signUp(ctx);
      const second = (await signIn(ctx, account.email)).json().token as string;
      const out = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/signout',
        headers: bearer(account.token),
      });
      expect(out.statusCode).toBe(200);
      expect(out.json()).toEqual({ ok: true });
      expect(
        (await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(account.token) }))
          .statusCode,
      ).toBe(401);
      expect(
        (await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(second) })).statusCode,
      ).toBe(200);
      const again = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/signout',
        headers: bearer(account.token),
      });
      expect(again.statusCode).toBe(401);
    });

    it('ends a session after 7 idle days, and keeps an active one alive until the absolute expiry', async () => {
      const idle = await signUp(ctx);
      const active = await signUp(ctx);
      const me = (token: string) =>
        ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) });

      ctx.clock.advance(SESSION_IDLE_MS - 60_000);
      expect((await me(active.token)).statusCode).toBe(200); // activity moves last_seen_at
      ctx.clock.advance(2 * 60_000);
      expect((await me(idle.token)).statusCode).toBe(401);
      expect((await me(active.token)).statusCode).toBe(200);

      // Used every few days, the session still ends 30 days after it began.
      const started = (
        await ctx.db
          .selectFrom('sessions')
          .select('created_at')
          .where('user_id', '=', active.userId)
          .executeTakeFirstOrThrow()
      ).created_at;
      while (ctx.clock.now().getTime() < started.getTime() + SESSION_TTL_MS - 3 * 24 * 3600_000) {
        ctx.clock.advance(3 * 24 * 3600_000);
        expect((await me(active.token)).statusCode).toBe(200);
      }
      ctx.clock.set(new Date(started.getTime() + SESSION_TTL_MS + 1000));
      expect((await me(active.token)).statusCode).toBe(401);
    });

    it('housekeeping deletes dead sessions and old tokens and counters, and keeps live ones', async () => {
      const live = await signUp(ctx);
      const dead = await signUp(ctx);
      ctx.clock.advance(SESSION_IDLE_MS + 60_000);
      await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(live.token) }); // was idle too long
      const fresh = (await signIn(ctx, live.email)).json().token as string;
      ctx.clock.advance(3 * 24 * 3600_000);
      const now = ctx.clock.now();
      expect((await runHousekeeping(ctx.db, now)).ran).toBe(true);
      const sessions = async (userId: string) =>
        ctx.db.selectFrom('sessions').select('id').where('user_id', '=', userId).execute();
      expect(await sessions(dead.userId)).toHaveLength(0);
      expect(await sessions(live.userId)).toHaveLength(1);
      expect(
        (await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(fresh) })).statusCode,
      ).toBe(200);
      // The sign-up verification tokens expired more than a day ago.
      const tokens = await ctx.db
        .selectFrom('tokens')
        .select('id')
        .where('user_id', 'in', [live.userId, dead.userId])
        .execute();
      expect(tokens).toHaveLength(0);
      const oldCounters = await ctx.db
        .selectFrom('rate_limits')
        .select('key')
        .where('window_start', '<', new Date(now.getTime() - 2 * 24 * 3600_000))
        .execute();
      expect(oldCounters).toHaveLength(0);
    });

    it('writes last_seen_at at most once a minute', async () => {
      const account = await signUp(ctx);
      const lastSeen = async () =>
        (
          await ctx.db
            .selectFrom('sessions')
            .select('last_seen_at')
            .where('user_id', '=', account.userId)
            .executeTakeFirstOrThrow()
        ).last_seen_at.getTime();
      const first = await lastSeen();
      ctx.clock.advance(30_000);
      await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(account.token) });
      expect(await lastSeen()).toBe(first);
      ctx.clock.advance(31_000);
      await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(account.token) });
      expect(await lastSeen()).toBe(ctx.clock.now().getTime());
    });
  });
});

describe('client IP and X-Forwarded-For', () => {
  const sessionIp = async (ctx: TestContext, userId: string) =>
    (
      await ctx.db
        .selectFrom('sessions')
        .select('ip')
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .execute()
    ).map((r) => r.ip);

  it('ignores X-Forwarded-For by default', async () => {
    const ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'none' } });
    try {
      const account = await signUp(ctx);
      await signIn(ctx, account.email, PASSWORD, {
        remoteAddress: '192.0.2.10',
        headers: { 'x-forwarded-for': '198.51.100.23' },
      });
      expect(await sessionIp(ctx, account.userId)).toContain('192.0.2.10');
      expect(await sessionIp(ctx, account.userId)).not.toContain('198.51.100.23');
      // Rotating the header does not escape the per-IP limit.
      for (let i = 0; i < RATE_RULES.signInPerIp.limit; i++) {
        await signIn(ctx, uniqueEmail('xff'), 'wrong-password', {
          remoteAddress: '192.0.2.11',
          headers: { 'x-forwarded-for': `198.51.100.${i + 1}` },
        });
      }
      const blocked = await signIn(ctx, uniqueEmail('xff'), 'wrong-password', {
        remoteAddress: '192.0.2.11',
        headers: { 'x-forwarded-for': '198.51.100.250' },
      });
      expect(blocked.statusCode).toBe(429);
    } finally {
      await ctx.close();
    }
  });

  it('uses X-Forwarded-For when TRUST_PROXY is set', async () => {
    const ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'none', TRUST_PROXY: '1' } });
    try {
      const account = await signUp(ctx);
      await signIn(ctx, account.email, PASSWORD, {
        remoteAddress: '127.0.0.1',
        headers: { 'x-forwarded-for': '198.51.100.23' },
      });
      expect(await sessionIp(ctx, account.userId)).toContain('198.51.100.23');
    } finally {
      await ctx.close();
    }
  });
});
