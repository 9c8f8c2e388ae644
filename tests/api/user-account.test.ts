import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_RATE_RULES } from '../../src/server/features/user/rate-rules.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { bearer, expectNoSecrets, linkToken, mailTo, signIn, signUp } from '../support/auth-api.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

const CHROME_MAC =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('account settings API', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: { CAPTCHA_PROVIDER: 'none', PUBLIC_URL: 'https://mail.example.net' },
    });
  });
  afterAll(async () => ctx?.close());

  const get = (url: string, token?: string) =>
    ctx.app.inject({ method: 'GET', url, headers: token ? bearer(token) : {} });
  const send = (method: 'POST' | 'PATCH', url: string, token: string | undefined, payload: unknown) =>
    ctx.app.inject({ method, url, headers: token ? bearer(token) : {}, payload: payload as object });

  it('every /api/user route answers 401 without a session', async () => {
    for (const [method, url, payload] of [
      ['GET', '/api/user/me', undefined],
      ['GET', '/api/user/settings', undefined],
      ['PATCH', '/api/user/settings', { loginAlerts: true }],
      ['POST', '/api/user/change-email', { newEmail: 'x@example.com' }],
      ['POST', '/api/user/change-password', { currentPassword: PASSWORD, newPassword: 'another password' }],
    ] as const) {
      const res = await ctx.app.inject({ method, url, payload });
      expect(res.statusCode, `${method} ${url}`).toBe(401);
      expect(res.json()).toEqual({ error: 'Not authenticated', code: 'unauthenticated' });
    }
  });

  it('GET /api/user/me answers { user } with the plan', async () => {
    const account = await signUp(ctx);
    const res = await get('/api/user/me', account.token);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      user: {
        id: account.userId,
        email: account.email,
        verified: false,
        plan: 'free',
        createdAt: expect.any(String),
        subscriptionStatus: 'none',
        hasPassword: true,
      },
    });
    expectNoSecrets(res, [account.token, PASSWORD]);
  });

  it('GET and PATCH /api/user/settings read and switch login alerts', async () => {
    const account = await signUp(ctx);
    const before = await get('/api/user/settings', account.token);
    expect(before.statusCode).toBe(200);
    expect(before.json()).toMatchObject({
      ok: true,
      user: { email: account.email },
      prefs: { loginAlerts: false },
    });
    const on = await send('PATCH', '/api/user/settings', account.token, { loginAlerts: true });
    expect(on.statusCode).toBe(200);
    expect(on.json()).toEqual({ ok: true, prefs: { loginAlerts: true } });
    expect((await get('/api/user/settings', account.token)).json().prefs).toEqual({ loginAlerts: true });
    const off = await send('PATCH', '/api/user/settings', account.token, { loginAlerts: false });
    expect(off.json()).toEqual({ ok: true, prefs: { loginAlerts: false } });
    const bad = await send('PATCH', '/api/user/settings', account.token, { loginAlerts: 'yes' });
    expect(bad.statusCode).toBe(400);
    const extra = await send('PATCH', '/api/user/settings', account.token, {
      loginAlerts: true,
      plan: 'pro',
    });
    expect(extra.statusCode).toBe(400);
    expect((await get('/api/user/me', account.token)).json().user.plan).toBe('free');
  });

  describe('login alerts', () => {
    it('mail the time, IP and browser of a new sign-in, at most once per 10 minutes and device, only when on', async () => {
      const account = await signUp(ctx);
      const alerts = async () =>
        (await mailTo(ctx, account.email)).filter((m) => m.subject.startsWith('New sign-in'));

      expect((await signIn(ctx, account.email)).statusCode).toBe(200);
      expect(await alerts()).toHaveLength(0); // off by default

      await send('PATCH', '/api/user/settings', account.token, { loginAlerts: true });
      const res = await signIn(ctx, account.email, PASSWORD, {
        remoteAddress: '203.0.113.7',
        headers: { 'user-agent': CHROME_MAC },
      });
      expect(res.statusCode).toBe(200);
      const [alert] = await alerts();
      expect(alert).toBeDefined();
      expect(alert!.subject).toBe('New sign-in to your Proofmail account');
      expect(alert!.text).toContain('IP address: 203.0.113.7');
      expect(alert!.text).toContain('Browser: Chrome on macOS');
      const when = new Intl.DateTimeFormat('en-GB', {
        timeZone: 'UTC',
        dateStyle: 'long',
        timeStyle: 'short',
      }).format(ctx.clock.now());
      expect(alert!.text).toContain(`Time: ${when} UTC`);
      expect(alert!.html).toContain('203.0.113.7');

      const sameDevice = { remoteAddress: '203.0.113.7', headers: { 'user-agent': CHROME_MAC } };
      ctx.clock.advance(9 * 60_000);
      await signIn(ctx, account.email, PASSWORD, sameDevice);
      expect(await alerts()).toHaveLength(1);
      ctx.clock.advance(60_000);
      await signIn(ctx, account.email, PASSWORD, sameDevice);
      expect(await alerts()).toHaveLength(2);
      // Another device a minute after the owner's sign-in is reported: the gap is per device.
      ctx.clock.advance(60_000);
      await signIn(ctx, account.email, PASSWORD, {
        remoteAddress: '198.51.100.4',
        headers: { 'user-agent': CHROME_MAC },
      });
      expect(await alerts()).toHaveLength(3);
      expect((await alerts())[2]!.text).toContain('IP address: 198.51.100.4');
      // Back on the first device a minute later, and on the second: each is within its own gap.
      ctx.clock.advance(60_000);
      await signIn(ctx, account.email, PASSWORD, sameDevice);
      await signIn(ctx, account.email, PASSWORD, {
        remoteAddress: '198.51.100.4',
        headers: { 'user-agent': CHROME_MAC },
      });
      expect(await alerts()).toHaveLength(3);
    });

    it('a failed sign-in sends no alert', async () => {
      const account = await signUp(ctx);
      await send('PATCH', '/api/user/settings', account.token, { loginAlerts: true });
      await signIn(ctx, account.email, 'wrong password');
      expect(
        (await mailTo(ctx, account.email)).filter((m) => m.subject.startsWith('New sign-in')),
      ).toHaveLength(0);
    });
  });

  describe('POST /api/user/change-email', () => {
    it('mails a link to the new address and a notice to the old; the link switches the email and signs out', async () => {
      const account = await signUp(ctx);
      const second = (await signIn(ctx, account.email)).json().token as string;
      const newEmail = uniqueEmail('moved');
      const res = await send('POST', '/api/user/change-email', account.token, {
        newEmail,
        currentPassword: PASSWORD,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });

      const toNew = await mailTo(ctx, newEmail);
      expect(toNew).toHaveLength(1);
      expect(toNew[0]!.subject).toBe('Confirm your new email for Proofmail');
      const token = linkToken(toNew[0], '/verify');
      expect(toNew[0]!.text).toContain(`https://mail.example.net/verify?token=${token}`);
      const notice = (await mailTo(ctx, account.email)).find(
        (m) => m.subject === 'Your Proofmail email address is being changed',
      );
      expect(notice).toBeDefined();
      expect(notice!.text).toContain(newEmail);
      expect(notice!.text).not.toContain(token);

      // Nothing changes until the link is used.
      expect((await get('/api/user/me', account.token)).json().user.email).toBe(account.email);

      const verified = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/verify-email',
        payload: { token },
      });
      expect(verified.statusCode).toBe(200);
      expect(verified.json()).toEqual({ ok: true, emailChanged: true });
      for (const t of [account.token, second]) expect((await get('/api/auth/me', t)).statusCode).toBe(401);
      expect((await signIn(ctx, account.email)).statusCode).toBe(401);
      const fresh = await signIn(ctx, newEmail);
      expect(fresh.statusCode).toBe(200);
      expect(fresh.json().user).toMatchObject({ email: newEmail, verified: true });
      // Single use.
      expect(
        (await ctx.app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token } }))
          .statusCode,
      ).toBe(400);
    });

    it('an old sign-up verification link no longer verifies after the address changed', async () => {
      const account = await signUp(ctx);
      const signupToken = linkToken((await mailTo(ctx, account.email))[0], '/verify');
      const newEmail = uniqueEmail('moved2');
      await send('POST', '/api/user/change-email', account.token, { newEmail, currentPassword: PASSWORD });
      const token = linkToken((await mailTo(ctx, newEmail))[0], '/verify');
      await ctx.app.inject({ method: 'POST', url: '/api/auth/verify-email', payload: { token } });
      const stale = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/verify-email',
        payload: { token: signupToken },
      });
      expect(stale.statusCode).toBe(400);
    });

    it('only the latest change request counts', async () => {
      const account = await signUp(ctx);
      const first = uniqueEmail('first');
      const second = uniqueEmail('second');
      await send('POST', '/api/user/change-email', account.token, {
        newEmail: first,
        currentPassword: PASSWORD,
      });
      await send('POST', '/api/user/change-email', account.token, {
        newEmail: second,
        currentPassword: PASSWORD,
      });
      const firstToken = linkToken((await mailTo(ctx, first))[0], '/verify');
      expect(
        (
          await ctx.app.inject({
            method: 'POST',
            url: '/api/auth/verify-email',
            payload: { token: firstToken },
          })
        ).statusCode,
      ).toBe(400);
    });

    it('refuses the same, an empty and a malformed address, and a missing or wrong current password', async () => {
      const account = await signUp(ctx);
      const cases: [object, number, string, string][] = [
        [
          { newEmail: account.email.toUpperCase(), currentPassword: PASSWORD },
          400,
          'This is already your email address',
          'same_email',
        ],
        [
          { newEmail: '  ', currentPassword: PASSWORD },
          400,
          'Please enter a new email address',
          'missing_fields',
        ],
        [
          { newEmail: 'not an email', currentPassword: PASSWORD },
          400,
          'Please enter a valid email address',
          'invalid_email',
        ],
        [{ newEmail: uniqueEmail('x') }, 400, 'Please enter your current password', 'password_required'],
        [
          { newEmail: uniqueEmail('x'), currentPassword: '' },
          400,
          'Please enter your current password',
          'password_required',
        ],
        [
          { newEmail: uniqueEmail('x'), currentPassword: 'not my password' },
          400,
          'Current password is incorrect',
          'wrong_password',
        ],
      ];
      for (const [payload, status, error, code] of cases) {
        const res = await send('POST', '/api/user/change-email', account.token, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(status);
        expect(res.json()).toEqual({ error, code });
      }
      expect(await mailTo(ctx, account.email)).toHaveLength(1); // the sign-up verification only
    });

    it('is rate-limited per account', async () => {
      const account = await signUp(ctx);
      for (let i = 0; i < USER_RATE_RULES.changeEmailPerAccount.limit; i++) {
        expect(
          (
            await send('POST', '/api/user/change-email', account.token, {
              newEmail: uniqueEmail('many'),
              currentPassword: PASSWORD,
            })
          ).statusCode,
        ).toBe(200);
      }
      const blocked = await send('POST', '/api/user/change-email', account.token, {
        newEmail: uniqueEmail('many'),
        currentPassword: PASSWORD,
      });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().error).toMatch(/^Too many email change requests\. Try again in \d+ minutes?\.$/);
    });
  });

  describe('POST /api/user/change-password', () => {
    it('checks the current password, keeps this session, ends the others and sends a notice', async () => {
      const account = await signUp(ctx);
      const other = (await signIn(ctx, account.email)).json().token as string;
      const newPassword = 'my much better password';
      const res = await send('POST', '/api/user/change-password', account.token, {
        currentPassword: PASSWORD,
        newPassword,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ ok: true });
      expectNoSecrets(res, [PASSWORD, newPassword]);
      expect((await get('/api/auth/me', account.token)).statusCode).toBe(200);
      expect((await get('/api/auth/me', other)).statusCode).toBe(401);
      expect((await signIn(ctx, account.email, PASSWORD)).statusCode).toBe(401);
      expect((await signIn(ctx, account.email, newPassword)).statusCode).toBe(200);
      const notice = (await mailTo(ctx, account.email)).find(
        (m) => m.subject === 'Your Proofmail password was changed',
      );
      expect(notice).toBeDefined();
    });

    it('answers the spec messages for a wrong current password, a short new one and empty fields', async () => {
      const account = await signUp(ctx);
      const cases: [object, string][] = [
        [
          { currentPassword: 'not my password', newPassword: 'long enough new' },
          'Current password is incorrect',
        ],
        [{ currentPassword: PASSWORD, newPassword: 'short' }, 'Password must be at least 8 characters'],
        [{ currentPassword: '', newPassword: 'long enough new' }, 'Please fill in all fields'],
        [{ currentPassword: PASSWORD, newPassword: '' }, 'Please fill in all fields'],
      ];
      for (const [payload, error] of cases) {
        const res = await send('POST', '/api/user/change-password', account.token, payload);
        expect(res.statusCode).toBe(400);
        expect(res.json().error).toBe(error);
      }
      expect((await signIn(ctx, account.email)).statusCode).toBe(200);
    });

    it('limits wrong current-password guesses', async () => {
      const account = await signUp(ctx);
      for (let i = 0; i < USER_RATE_RULES.changePasswordPerAccount.limit; i++) {
        const res = await send('POST', '/api/user/change-password', account.token, {
          currentPassword: `guess number ${i}`,
          newPassword: 'long enough new',
        });
        expect(res.statusCode).toBe(400);
      }
      const blocked = await send('POST', '/api/user/change-password', account.token, {
        currentPassword: PASSWORD,
        newPassword: 'long enough new',
      });
      expect(blocked.statusCode).toBe(429);
      expect(blocked.json().error).toMatch(/^Too many password attempts\. Try again in \d+ minutes?\.$/);
    });
  });
});
