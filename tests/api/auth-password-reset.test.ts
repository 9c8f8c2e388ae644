import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_RULES } from '../../src/server/features/auth/rate-rules.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import {
  bearer,
  expectNoSecrets,
  linkToken,
  mailTo,
  signIn,
  signUp,
  waitForMail,
} from '../support/auth-api.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

describe('password reset', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: { CAPTCHA_PROVIDER: 'none', PUBLIC_URL: 'https://app.example.org' },
    });
  });
  afterAll(async () => ctx?.close());

  const request = (email: string, remoteAddress?: string) =>
    ctx.app.inject({
      method: 'POST',
      url: '/api/auth/request-password-reset',
      payload: { email },
      remoteAddress,
    });
  const reset = (token: string, newPassword: string) =>
    ctx.app.inject({ method: 'POST', url: '/api/auth/reset-password', payload: { token, newPassword } });

  async function resetTokenFor(email: string, nth = 1): Promise<string> {
    const mails = await waitForMail(ctx, email, nth, (m) => m.subject === 'Reset your Proofmail password');
    return linkToken(mails[nth - 1], '/reset-password');
  }

  it('answers identically for an existing and an unknown address; mails only the existing one', async () => {
    const account = await signUp(ctx);
    const unknown = uniqueEmail('ghost');
    const a = await request(account.email);
    const b = await request(unknown);
    for (const res of [a, b]) {
      expect(res.statusCode).toBe(200);
      expect(res.body).toBe('{"ok":true}');
    }
    const pick = (h: Record<string, unknown>) => {
      const { date: _d, 'request-id': _r, ...rest } = h;
      return rest;
    };
    expect(pick(a.headers)).toEqual(pick(b.headers));

    const mails = await waitForMail(ctx, account.email, 2);
    const reset = mails.find((m) => m.subject === 'Reset your Proofmail password');
    expect(reset).toBeDefined();
    expect(reset!.text).toMatch(/https:\/\/app\.example\.org\/reset-password\?token=[A-Za-z0-9_-]{43}/);
    // Give any (wrong) background work time to show up, then check the unknown address got nothing.
    await new Promise((r) => setTimeout(r, 200));
    expect(await mailTo(ctx, unknown)).toHaveLength(0);
  });

  it('asks for an email address', async () => {
    const res = await request('  ');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Please enter your email address');
  });

  it('refuses something that is not an email address, before any rate limit or lookup', async () => {
    for (const email of ['abc', 'abc@', '@example.com', 'a b@example.com', 'Name <a@example.com>']) {
      const res = await request(email);
      expect(res.statusCode, email).toBe(400);
      expect(res.json(), email).toEqual({
        error: 'Please enter a valid email address',
        code: 'invalid_email',
      });
    }
  });

  it('POST /api/auth/reset-password sets the password, ends every session and sends a notice', async () => {
    const account = await signUp(ctx);
    const other = (await signIn(ctx, account.email)).json().token as string;
    await request(account.email);
    const token = await resetTokenFor(account.email);
    const newPassword = 'a brand new password';
    const res = await reset(token, newPassword);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
    expectNoSecrets(res, [token, newPassword]);

    for (const t of [account.token, other]) {
      expect(
        (await ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(t) })).statusCode,
      ).toBe(401);
    }
    expect((await signIn(ctx, account.email, PASSWORD)).statusCode).toBe(401);
    const fresh = await signIn(ctx, account.email, newPassword);
    expect(fresh.statusCode).toBe(200);
    // The link proved the address.
    expect(fresh.json().user.verified).toBe(true);

    const notice = (await mailTo(ctx, account.email)).find(
      (m) => m.subject === 'Your Proofmail password was changed',
    );
    expect(notice).toBeDefined();
    expect(notice!.text).not.toContain(newPassword);
  });

  it('a reset link works once', async () => {
    const account = await signUp(ctx);
    await request(account.email);
    const token = await resetTokenFor(account.email);
    expect((await reset(token, 'first new password')).statusCode).toBe(200);
    const again = await reset(token, 'second new password');
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ error: 'Invalid or expired reset link', code: 'invalid_token' });
    expect((await signIn(ctx, account.email, 'first new password')).statusCode).toBe(200);
  });

  it('a reset link expires after 30 minutes', async () => {
    const account = await signUp(ctx);
    await request(account.email);
    const token = await resetTokenFor(account.email);
    ctx.clock.advance(30 * 60_000 + 1000);
    const res = await reset(token, 'too late password');
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Invalid or expired reset link');
  });

  it('only the newest reset link works', async () => {
    const account = await signUp(ctx);
    await request(account.email);
    const first = await resetTokenFor(account.email, 1);
    await request(account.email);
    const second = await resetTokenFor(account.email, 2);
    expect((await reset(first, 'password number one')).statusCode).toBe(400);
    expect((await reset(second, 'password number two')).statusCode).toBe(200);
  });

  it('is purpose-bound: a verification link does not reset', async () => {
    const account = await signUp(ctx);
    const verifyToken = linkToken((await mailTo(ctx, account.email))[0], '/verify');
    expect((await reset(verifyToken, 'sneaky new password')).statusCode).toBe(400);
    expect((await signIn(ctx, account.email)).statusCode).toBe(200);
  });

  it('checks the new password and the link', async () => {
    const short = await reset('A'.repeat(43), 'short');
    expect(short.statusCode).toBe(400);
    expect(short.json().error).toBe('Password must be at least 8 characters');
    const missing = await reset('', 'long enough password');
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toBe('Invalid or expired reset link');
    const unknown = await reset('B'.repeat(43), 'long enough password');
    expect(unknown.statusCode).toBe(400);
    expect(unknown.json().error).toBe('Invalid or expired reset link');
  });

  it('limits reset requests per address, the same way for unknown addresses', async () => {
    for (const email of [(await signUp(ctx)).email, uniqueEmail('ghost')]) {
      for (let i = 0; i < RATE_RULES.resetRequestPerAccount.limit; i++) {
        expect((await request(email, `198.51.100.${i + 10}`)).statusCode).toBe(200);
      }
      const blocked = await request(email, '198.51.100.99');
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().error).toMatch(
        /^Too many password reset requests\. Try again in \d+ minutes?\.$/,
      );
    }
  });

  it('limits reset requests per IP', async () => {
    const ip = '203.0.113.9';
    for (let i = 0; i < RATE_RULES.resetRequestPerIp.limit; i++) {
      expect((await request(uniqueEmail('ipburst'), ip)).statusCode).toBe(200);
    }
    expect((await request(uniqueEmail('ipburst'), ip)).statusCode).toBe(429);
  });
});
