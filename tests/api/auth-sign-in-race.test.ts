import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/server/accounts/account-mail.ts';
import { browserBinding, hashPassword, newSecretToken } from '../../src/server/accounts/credentials.ts';
import { deleteUserSessions } from '../../src/server/accounts/sessions.repo.ts';
import { retirePendingLinks } from '../../src/server/accounts/tokens.repo.ts';
import { setPasswordHash } from '../../src/server/accounts/users.repo.ts';
import type { Executor } from '../../src/server/db/executor.ts';
import { bearer, linkToken, mailTo, signIn, signUp, waitForMail } from '../support/auth-api.ts';
import { holdSignIns, holdUserRow, whileWaiting } from '../support/lock-wait.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

/**
 * What was checked without a lock must still hold when a session opens or a change is made:
 * everything that takes an account back (a password reset or change, an email change confirmed or
 * undone, a provider claim: tests/api/auth-oauth.test.ts) locks the user's row before it ends the
 * sessions, and sign-in, the ticket exchange, a password change and an email-change request check
 * under the same lock (docs/decisions/0020-provider-email-claims-unverified-account.md). Each test
 * plays the losing order of the race: the check passes, the take-back commits, then the session
 * or change would be made.
 */
describe('sign-ins and changes racing a take-back', () => {
  let ctx: TestContext;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'none' } });
  });
  afterAll(async () => ctx?.close());

  const NEW_PASSWORD = 'the owner took it back';

  const post = (url: string, payload: object, token?: string) =>
    ctx.app.inject({ method: 'POST', url, payload, headers: token ? bearer(token) : {} });

  const sessionsOf = async (userId: string) =>
    (await ctx.db.selectFrom('sessions').select('id').where('user_id', '=', userId).execute()).length;

  function expectWrongPassword(res: LightMyRequestResponse): void {
    expect(res.statusCode, res.body).toBe(401);
    expect(res.json()).toEqual({ error: 'Invalid email or password', code: 'invalid_credentials' });
  }

  /** A password sign-in that read the password hash before `takeBack` ran, and finishes after it. */
  const signInAcross = (email: string, password: string, takeBack: () => Promise<unknown>) =>
    whileWaiting(ctx.db, {
      hold: holdSignIns,
      start: () => signIn(ctx, email, password),
      meanwhile: takeBack,
    });

  it('a sign-in whose password was read before a reset opens no session after it', async () => {
    const account = await signUp(ctx);
    await post('/api/auth/request-password-reset', { email: account.email });
    const [mail] = await waitForMail(ctx, account.email, 1, (m) => m.subject.startsWith('Reset'));
    const token = linkToken(mail, '/reset-password');
    const late = await signInAcross(account.email, PASSWORD, async () => {
      const reset = await post('/api/auth/reset-password', { token, newPassword: NEW_PASSWORD });
      expect(reset.statusCode, reset.body).toBe(200);
    });
    expectWrongPassword(late);
    expect(await sessionsOf(account.userId)).toBe(0);
    expect((await signIn(ctx, account.email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('a sign-in whose password was read before a password change opens no session after it', async () => {
    const account = await signUp(ctx);
    const late = await signInAcross(account.email, PASSWORD, async () => {
      const change = await post(
        '/api/user/change-password',
        { currentPassword: PASSWORD, newPassword: NEW_PASSWORD },
        account.token,
      );
      expect(change.statusCode, change.body).toBe(200);
    });
    expectWrongPassword(late);
    expect(await sessionsOf(account.userId)).toBe(1); // the session that made the change
  });

  it('a sign-in with the old address read before an email change is confirmed opens no session after it', async () => {
    const account = await signUp(ctx);
    const newEmail = uniqueEmail('moved');
    const asked = await post(
      '/api/user/change-email',
      { newEmail, currentPassword: PASSWORD },
      account.token,
    );
    expect(asked.statusCode, asked.body).toBe(200);
    const token = linkToken((await mailTo(ctx, newEmail))[0], '/verify');
    const late = await signInAcross(account.email, PASSWORD, async () => {
      expect((await post('/api/auth/verify-email', { token })).json()).toEqual({
        ok: true,
        emailChanged: true,
      });
    });
    expectWrongPassword(late);
    expect(await sessionsOf(account.userId)).toBe(0);
  });

  it('a sign-in with a stolen address and password read before "this wasn\'t me" opens no session after it', async () => {
    const account = await signUp(ctx);
    const thief = uniqueEmail('thief');
    const thiefPassword = 'the thief chose this one';
    await post('/api/user/change-email', { newEmail: thief, currentPassword: PASSWORD }, account.token);
    const notice = (await mailTo(ctx, account.email)).find((m) => m.subject.includes('being changed'));
    const cancelToken = /cancel-email-change\?token=([A-Za-z0-9_-]{43})/.exec(notice?.text ?? '')?.[1];
    expect(cancelToken).toBeDefined();
    await post('/api/auth/verify-email', { token: linkToken((await mailTo(ctx, thief))[0], '/verify') });
    const thiefSession = (await signIn(ctx, thief)).json().token as string;
    const change = await post(
      '/api/user/change-password',
      { currentPassword: PASSWORD, newPassword: thiefPassword },
      thiefSession,
    );
    expect(change.statusCode, change.body).toBe(200);

    const late = await signInAcross(thief, thiefPassword, async () => {
      const undone = await post('/api/auth/cancel-email-change', { token: cancelToken });
      expect(undone.json()).toMatchObject({ restored: true, email: account.email, passwordRemoved: true });
    });
    expectWrongPassword(late);
    expect(await sessionsOf(account.userId)).toBe(0);
  });

  /**
   * What a password reset does to an account (auth.service.ts resetPassword), done in the test's
   * own transaction, which holds the user's row: the real reset would wait for that lock.
   */
  async function resetInside(trx: Executor, userId: string, newHash: string): Promise<void> {
    const now = ctx.clock.now();
    await setPasswordHash(trx, userId, newHash, now);
    await retirePendingLinks(trx, userId, now);
    await deleteUserSessions(trx, userId);
  }

  it('a sign-in ticket taken before a reset opens no session after it', async () => {
    const account = await signUp(ctx);
    const browserKey = newSecretToken();
    const ticket = await issueToken(ctx.db, {
      userId: account.userId,
      purpose: 'oauth_ticket',
      payload: { browser: browserBinding(browserKey) },
      now: ctx.clock.now(),
    });
    const newHash = await hashPassword(NEW_PASSWORD);
    const late = await whileWaiting(ctx.db, {
      hold: (trx) => holdUserRow(trx, account.userId),
      start: () =>
        ctx.app.inject({
          method: 'POST',
          url: '/api/auth/exchange',
          payload: { ticket },
          headers: { cookie: `pm_oauth_ticket=${browserKey}` },
        }),
      meanwhile: (trx) => resetInside(trx, account.userId, newHash),
    });
    expect(late.statusCode, late.body).toBe(400);
    expect(late.json().code).toBe('invalid_ticket');
    expect(await sessionsOf(account.userId)).toBe(0);
  });

  it('a password change checked before a reset changes nothing after it', async () => {
    const account = await signUp(ctx);
    const newHash = await hashPassword(NEW_PASSWORD);
    const late = await whileWaiting(ctx.db, {
      hold: (trx) => holdUserRow(trx, account.userId),
      start: () =>
        post(
          '/api/user/change-password',
          { currentPassword: PASSWORD, newPassword: 'the thief wants this one' },
          account.token,
        ),
      meanwhile: (trx) => resetInside(trx, account.userId, newHash),
    });
    expect(late.statusCode, late.body).toBe(401);
    expect((await signIn(ctx, account.email, NEW_PASSWORD)).statusCode).toBe(200);
  });

  it('an email change asked for before a reset leaves no link after it', async () => {
    const account = await signUp(ctx);
    const newHash = await hashPassword(NEW_PASSWORD);
    const late = await whileWaiting(ctx.db, {
      hold: (trx) => holdUserRow(trx, account.userId),
      start: () =>
        post(
          '/api/user/change-email',
          { newEmail: uniqueEmail('thief'), currentPassword: PASSWORD },
          account.token,
        ),
      meanwhile: (trx) => resetInside(trx, account.userId, newHash),
    });
    expect(late.statusCode, late.body).toBe(401);
    const links = await ctx.db
      .selectFrom('tokens')
      .select('id')
      .where('user_id', '=', account.userId)
      .where('purpose', '=', 'change_email')
      .execute();
    expect(links).toHaveLength(0);
  });
});
