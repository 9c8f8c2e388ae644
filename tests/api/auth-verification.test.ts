import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_RULES } from '../../src/server/features/auth/rate-rules.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { bearer, expectNoSecrets, linkToken, mailTo, signUp, waitForMail } from '../support/auth-api.ts';

describe('email verification', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'none' } });
  });
  afterAll(async () => ctx?.close());

  const verify = (token: unknown) =>
    ctx.app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token } });
  const me = (token: string) =>
    ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) });

  it('POST /api/auth/verify-email verifies the address once; the link cannot be used again', async () => {
    const account = await signUp(ctx);
    const token = linkToken((await mailTo(ctx, account.email))[0], '/verify');
    const res = await verify(token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, emailChanged: false });
    expectNoSecrets(res, [token]);
    expect((await me(account.token)).json().user.verified).toBe(true);
    // The session survives a plain verification.
    const again = await verify(token);
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ error: 'Invalid or expired verification link', code: 'invalid_token' });
  });

  it('rejects unknown, malformed and empty tokens with the same message', async () => {
    for (const token of ['A'.repeat(43), 'nope', '', '../../etc/passwd']) {
      const res = await verify(token);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toBe('Invalid or expired verification link');
    }
  });

  it('expires a verification link after 24 hours (injected clock)', async () => {
    const fresh = await signUp(ctx);
    const stale = await signUp(ctx);
    const freshToken = linkToken((await mailTo(ctx, fresh.email))[0], '/verify');
    const staleToken = linkToken((await mailTo(ctx, stale.email))[0], '/verify');
    ctx.clock.advance(24 * 3600_000 - 60_000);
    expect((await verify(freshToken)).statusCode).toBe(200);
    ctx.clock.advance(2 * 60_000);
    const res = await verify(staleToken);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toBe('Invalid or expired verification link');
  });

  it('is purpose-bound: a password reset link does not verify', async () => {
    const account = await signUp(ctx);
    await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/request-password-reset',
      payload: { email: account.email },
    });
    const [resetMail] = await waitForMail(ctx, account.email, 1, (m) => m.subject.includes('Reset'));
    const resetToken = linkToken(resetMail, '/reset-password');
    expect((await verify(resetToken)).statusCode).toBe(400);
    expect((await me(account.token)).json().user.verified).toBe(false);
  });

  describe('POST /api/auth/resend-verification', () => {
    it('needs a session', async () => {
      const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/resend-verification' });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toEqual({ error: 'Not authenticated', code: 'unauthenticated' });
    });

    it('sends a new working link; older links keep working until used or expired', async () => {
      const account = await signUp(ctx);
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/resend-verification',
        headers: bearer(account.token),
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });
      const mails = await mailTo(ctx, account.email);
      expect(mails).toHaveLength(2);
      const newest = linkToken(mails[1], '/verify');
      expect(newest).not.toBe(linkToken(mails[0], '/verify'));
      expectNoSecrets(res, [newest]);
      expect((await verify(newest)).statusCode).toBe(200);
    });

    it('answers ok without sending anything for a verified address', async () => {
      const account = await signUp(ctx);
      await verify(linkToken((await mailTo(ctx, account.email))[0], '/verify'));
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/resend-verification',
        headers: bearer(account.token),
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });
      expect(await mailTo(ctx, account.email)).toHaveLength(1);
    });

    it('is rate-limited per account', async () => {
      const account = await signUp(ctx);
      for (let i = 0; i < RATE_RULES.resendPerAccount.limit; i++) {
        const ok = await ctx.app.inject({
          method: 'POST',
          url: '/api/auth/resend-verification',
          headers: bearer(account.token),
          remoteAddress: `192.0.2.${i + 1}`,
        });
        expect(ok.statusCode).toBe(200);
      }
      const blocked = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/resend-verification',
        headers: bearer(account.token),
      });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().error).toMatch(
        /^Too many verification email requests\. Try again in \d+ minutes?\.$/,
      );
      expect(await mailTo(ctx, account.email)).toHaveLength(1 + RATE_RULES.resendPerAccount.limit);
    });
  });
});
