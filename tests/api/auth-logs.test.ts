import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { startFakeGoogle, type FakeGoogle } from '../support/fake-oauth.ts';
import { bearer, linkToken, mailTo, solveCaptcha, waitForMail } from '../support/auth-api.ts';
import { uniqueEmail } from '../support/users.ts';

/**
 * docs/architecture.md §6: logs never contain tokens or passwords. Runs every account flow with the most verbose
 * log level, collects every secret that was issued or typed, and searches the captured log.
 */
describe('server log across the accounts API', () => {
  let ctx: TestContext;
  let google: FakeGoogle;
  const secrets: string[] = [];
  const keep = (...values: (string | null | undefined)[]) => {
    for (const v of values) if (v) secrets.push(v);
  };

  beforeAll(async () => {
    google = await startFakeGoogle();
    ctx = await createTestContext({
      env: { LOG_LEVEL: 'trace', CAPTCHA_PROVIDER: 'altcha', CAPTCHA_MAX_NUMBER: '100', ...google.env },
    });
  });
  afterAll(async () => {
    await ctx?.close();
    await google?.stop();
  });

  it('runs every flow', async () => {
    const email = uniqueEmail('logs');
    const password = 'Pa55word-in-the-log?';
    const captchaToken = await solveCaptcha(ctx);
    keep(password, captchaToken);
    const signup = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/signup',
      payload: { email, password, captchaToken },
    });
    expect(signup.statusCode).toBe(200);
    const token = signup.json().token as string;
    keep(token);

    // Failed and successful sign-ins, with the token also in a query string and a bad header.
    keep('Wr0ng-password!');
    await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/signin',
      payload: { email, password: 'Wr0ng-password!' },
    });
    const signin = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/signin',
      payload: { email, password },
    });
    keep(signin.json().token);
    await ctx.app.inject({ method: 'GET', url: `/api/auth/me?token=${token}`, headers: bearer(token) });

    await ctx.app.inject({ method: 'POST', url: '/api/auth/resend-verification', headers: bearer(token) });
    const verifyToken = linkToken((await mailTo(ctx, email))[0], '/verify');
    keep(verifyToken, linkToken((await mailTo(ctx, email))[1], '/verify'));
    await ctx.app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token: verifyToken } });
    await ctx.app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token: verifyToken } }); // reused

    const newPassword = 'N3w-password-in-the-log';
    keep(newPassword);
    await ctx.app.inject({
      method: 'POST',
      url: '/api/user/change-password',
      headers: bearer(token),
      payload: { currentPassword: password, newPassword },
    });
    await ctx.app.inject({
      method: 'POST',
      url: '/api/user/change-password',
      headers: bearer(token),
      payload: { currentPassword: 'Wr0ng-password!', newPassword },
    });

    await ctx.app.inject({ method: 'POST', url: '/api/auth/request-password-reset', payload: { email } });
    const [resetMail] = await waitForMail(ctx, email, 1, (m) => m.subject.startsWith('Reset'));
    const resetToken = linkToken(resetMail, '/reset-password');
    const resetPassword = 'R3set-password-in-the-log';
    keep(resetToken, resetPassword);
    await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: resetToken, newPassword: resetPassword },
    });
    await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token: resetToken, newPassword: resetPassword },
    });

    const again = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/signin',
      payload: { email, password: resetPassword },
    });
    const token2 = again.json().token as string;
    keep(token2);
    const newEmail = uniqueEmail('logs-moved');
    await ctx.app.inject({
      method: 'POST',
      url: '/api/user/change-email',
      headers: bearer(token2),
      payload: { newEmail, currentPassword: resetPassword },
    });
    const changeToken = linkToken((await mailTo(ctx, newEmail))[0], '/verify');
    keep(changeToken);
    await ctx.app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token: changeToken } });

    // Social sign-in: the authorization code, state, ticket and session.
    google.setIdentity({ sub: 'logs-1', email: uniqueEmail('logs-g'), email_verified: true });
    const start = await ctx.app.inject({ method: 'GET', url: '/api/auth/google' });
    const cookie = String(start.headers['set-cookie']).split(';')[0]!;
    keep(cookie.split('=')[1]?.split('.')[1]); // the PKCE verifier
    const authorize = await fetch(String(start.headers.location), { redirect: 'manual' });
    const back = new URL(authorize.headers.get('location')!);
    keep(back.searchParams.get('code'), back.searchParams.get('state'));
    const callback = await ctx.app.inject({
      method: 'GET',
      url: back.pathname + back.search,
      headers: { cookie },
    });
    const ticket = new URL(String(callback.headers.location)).searchParams.get('token');
    keep(ticket);
    const ticketCookie = [callback.headers['set-cookie'] ?? []]
      .flat()
      .map(String)
      .find((c) => c.startsWith('pm_oauth_ticket='))!
      .split(';')[0]!;
    keep(ticketCookie.split('=')[1]); // the key binding the ticket to this browser
    const exchanged = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/exchange',
      payload: { ticket },
      headers: { cookie: ticketCookie },
    });
    expect(exchanged.statusCode).toBe(200);
    keep(exchanged.json().token);
    await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/exchange',
      payload: { ticket },
      headers: { cookie: ticketCookie },
    }); // reused
    await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/signout',
      headers: bearer(exchanged.json().token),
    });
  });

  it('logged the requests but none of the secrets', () => {
    const log = ctx.logs();
    expect(log).toContain('/api/auth/signin');
    expect(log).toContain('/api/auth/google/callback');
    expect(secrets.length).toBeGreaterThanOrEqual(15);
    for (const secret of secrets)
      expect(log.includes(secret), `a secret of ${secret.length} characters is in the log`).toBe(false);
    expect(log).not.toMatch(/\$argon2/);
  });
});
