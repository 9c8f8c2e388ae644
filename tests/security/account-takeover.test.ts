import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/server/accounts/account-mail.ts';
import { startSession } from '../../src/server/accounts/sessions.ts';
import { bearer, linkToken, mailTo, signIn, signUp, type OutboxMail } from '../support/auth-api.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, PASSWORD, uniqueEmail } from '../support/users.ts';

/**
 * A stolen session must not become a permanent takeover (docs/architecture.md §6,
 * docs/decisions/0033-email-change-needs-password.md): changing the email needs the password (or
 * a fresh sign-in), a new password retires every pending link, and the old address gets a "this
 * wasn't me" link that undoes the change and signs out everywhere.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({
    env: { CAPTCHA_PROVIDER: 'none', PUBLIC_URL: 'https://mail.example.net' },
  });
});
afterAll(async () => ctx?.close());

const post = (url: string, payload: object, token?: string) =>
  ctx.app.inject({ method: 'POST', url, payload, headers: token ? bearer(token) : {} });
const changeEmail = (token: string, payload: { newEmail: string; currentPassword?: string }) =>
  post('/api/user/change-email', payload, token);
const verify = (token: string) => post('/api/auth/verify-email', { token });
const cancel = (token: string) => post('/api/auth/cancel-email-change', { token });
const me = (token: string) => ctx.app.inject({ method: 'GET', url: '/api/auth/me', headers: bearer(token) });

/** The "this wasn't me" token of the newest email-change notice sent to `address`. */
async function cancelToken(address: string): Promise<string> {
  const notices = (await mailTo(ctx, address)).filter((m: OutboxMail) =>
    m.subject.includes('is being changed'),
  );
  const text = notices.at(-1)?.text ?? '';
  const match = /\/cancel-email-change\?token=([A-Za-z0-9_-]{43})/.exec(text);
  expect(match, text).not.toBeNull();
  return match![1]!;
}

describe('changing the email needs the account owner', () => {
  it('a stolen session alone cannot change the email: the current password is required', async () => {
    const victim = await signUp(ctx, uniqueEmail('victim'));
    const attackerAddress = uniqueEmail('attacker');
    for (const payload of [
      { newEmail: attackerAddress },
      { newEmail: attackerAddress, currentPassword: 'a guess at it' },
    ]) {
      const res = await changeEmail(victim.token, payload);
      expect(res.statusCode).toBe(400);
      expect(['password_required', 'wrong_password']).toContain(res.json().code);
    }
    expect(await mailTo(ctx, attackerAddress)).toHaveLength(0);
    const links = await ctx.db
      .selectFrom('tokens')
      .select('id')
      .where('user_id', '=', victim.userId)
      .where('purpose', '=', 'change_email')
      .execute();
    expect(links).toHaveLength(0);
  });

  it('an account without a password needs a sign-in from the last 10 minutes, else a clear 403', async () => {
    const now = ctx.clock.now();
    const social = await createUser(ctx.db, { now: new Date(now.getTime() - 11 * 60_000) });
    const stale = await changeEmail(social.token, { newEmail: uniqueEmail('social-stale') });
    expect(stale.statusCode).toBe(403);
    expect(stale.json()).toEqual({
      error:
        'For your security, sign in again to change your email address: your last sign-in was more than 10 minutes ago.',
      code: 'reauth_required',
    });
    const fresh = await startSession(ctx.db, social.user.id, { ip: '127.0.0.1', userAgent: 'vitest' }, now);
    const newEmail = uniqueEmail('social-fresh');
    const ok = await changeEmail(fresh, { newEmail });
    expect(ok.statusCode).toBe(200);
    expect(await mailTo(ctx, newEmail)).toHaveLength(1);
  });

  it('answers "we sent a link" for a taken address too, and mails its owner a note instead of a link', async () => {
    const account = await signUp(ctx, uniqueEmail('mover'));
    const owner = await signUp(ctx, uniqueEmail('owner'));
    const free = uniqueEmail('free');
    const taken = await changeEmail(account.token, {
      newEmail: owner.email.toUpperCase(),
      currentPassword: PASSWORD,
    });
    const open = await changeEmail(account.token, { newEmail: free, currentPassword: PASSWORD });
    expect(taken.statusCode).toBe(open.statusCode);
    expect(taken.body).toBe(open.body);
    expect(taken.json()).toEqual({ ok: true });

    const toOwner = (await mailTo(ctx, owner.email)).filter((m) => !m.subject.startsWith('Verify'));
    expect(toOwner.map((m) => m.subject)).toEqual(['Someone tried to use this address on Proofmail']);
    expect(toOwner[0]!.text).not.toMatch(/token=/);
    expect((await mailTo(ctx, free)).map((m) => m.subject)).toEqual(['Confirm your new email for Proofmail']);
    // The old address hears of both requests.
    const notices = (await mailTo(ctx, account.email)).filter((m) => m.subject.includes('is being changed'));
    expect(notices).toHaveLength(2);
  });
});

describe('a new password retires every pending link', () => {
  it('changing the password kills a pending email-change link (the attack of a stolen session that knew the password)', async () => {
    const victim = await signUp(ctx, uniqueEmail('victim'));
    const attackerAddress = uniqueEmail('attacker');
    expect(
      (await changeEmail(victim.token, { newEmail: attackerAddress, currentPassword: PASSWORD })).statusCode,
    ).toBe(200);
    const changeLink = linkToken((await mailTo(ctx, attackerAddress))[0], '/verify');
    // Open links of every other kind, as a stolen session could have left them.
    const now = ctx.clock.now();
    const others = await Promise.all(
      (['verify', 'reset', 'oauth_ticket'] as const).map((purpose) =>
        issueToken(ctx.db, {
          userId: victim.userId,
          purpose,
          payload: { email: victim.email.toLowerCase() },
          now,
        }),
      ),
    );
    const res = await post(
      '/api/user/change-password',
      { currentPassword: PASSWORD, newPassword: 'a new and better password' },
      victim.token,
    );
    expect(res.statusCode).toBe(200);

    // The attacker's link no longer confirms; the email stays the victim's.
    const confirmed = await verify(changeLink);
    expect(confirmed.statusCode).toBe(400);
    expect((await me(victim.token)).json().user.email).toBe(victim.email);
    const open = await ctx.db
      .selectFrom('tokens')
      .select('purpose')
      .where('user_id', '=', victim.userId)
      .where('used_at', 'is', null)
      .execute();
    // Only the "this wasn't me" link of the old address is left.
    expect(open.map((t) => t.purpose)).toEqual(['email_change_cancel']);
    expect(others).toHaveLength(3);
  });

  it('a password reset kills a pending email-change link too', async () => {
    const victim = await signUp(ctx, uniqueEmail('victim'));
    const attackerAddress = uniqueEmail('attacker');
    await changeEmail(victim.token, { newEmail: attackerAddress, currentPassword: PASSWORD });
    const changeLink = linkToken((await mailTo(ctx, attackerAddress))[0], '/verify');
    const resetLink = await issueToken(ctx.db, {
      userId: victim.userId,
      purpose: 'reset',
      now: ctx.clock.now(),
    });
    const reset = await post('/api/auth/reset-password', {
      token: resetLink,
      newPassword: 'a new and better password',
    });
    expect(reset.statusCode).toBe(200);
    expect((await verify(changeLink)).statusCode).toBe(400);
    expect((await signIn(ctx, victim.email, 'a new and better password')).statusCode).toBe(200);
  });
});

describe('"this wasn\'t me" on the notice to the old address', () => {
  it('cancels a pending change and signs out every device', async () => {
    const victim = await signUp(ctx, uniqueEmail('victim'));
    const other = (await signIn(ctx, victim.email)).json().token as string;
    const attackerAddress = uniqueEmail('attacker');
    await changeEmail(victim.token, { newEmail: attackerAddress, currentPassword: PASSWORD });
    const changeLink = linkToken((await mailTo(ctx, attackerAddress))[0], '/verify');

    const res = await cancel(await cancelToken(victim.email));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, restored: false, email: victim.email, passwordRemoved: false });
    for (const token of [victim.token, other]) expect((await me(token)).statusCode).toBe(401);
    expect((await verify(changeLink)).statusCode).toBe(400);
    expect((await signIn(ctx, victim.email)).statusCode).toBe(200);
  });

  it('after the change was confirmed, puts the old address back and locks the attacker out', async () => {
    const victim = await signUp(ctx, uniqueEmail('victim'));
    const attackerAddress = uniqueEmail('attacker');
    await changeEmail(victim.token, { newEmail: attackerAddress, currentPassword: PASSWORD });
    const undo = await cancelToken(victim.email);
    ctx.clock.advance(60_000);
    // The attacker confirms at once, resets the password at the new address and links a Google account.
    expect((await verify(linkToken((await mailTo(ctx, attackerAddress))[0], '/verify'))).statusCode).toBe(
      200,
    );
    const resetLink = await issueToken(ctx.db, {
      userId: victim.userId,
      purpose: 'reset',
      now: ctx.clock.now(),
    });
    expect(
      (await post('/api/auth/reset-password', { token: resetLink, newPassword: 'attacker password!' }))
        .statusCode,
    ).toBe(200);
    await ctx.db
      .insertInto('oauth_accounts')
      .values({
        provider: 'google',
        provider_user_id: `g-${victim.userId}`,
        user_id: victim.userId,
        email: attackerAddress,
        created_at: ctx.clock.now(),
      })
      .execute();
    const attackerSession = (await signIn(ctx, attackerAddress, 'attacker password!')).json().token as string;

    // Hours later the victim reads the notice. A new password did not retire this link.
    ctx.clock.advance(5 * 3600_000);
    const res = await cancel(undo);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, restored: true, email: victim.email, passwordRemoved: true });

    expect((await me(attackerSession)).statusCode).toBe(401);
    expect((await signIn(ctx, attackerAddress, 'attacker password!')).statusCode).toBe(401);
    expect((await signIn(ctx, victim.email, 'attacker password!')).statusCode).toBe(401);
    const row = await ctx.db
      .selectFrom('users')
      .select(['email', 'password_hash'])
      .where('id', '=', victim.userId)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ email: victim.email, password_hash: null });
    const identities = await ctx.db
      .selectFrom('oauth_accounts')
      .select('id')
      .where('user_id', '=', victim.userId)
      .execute();
    expect(identities).toHaveLength(0);
    // The owner takes it from here with "Forgot password", at their own address; the link worked once.
    expect((await cancel(undo)).statusCode).toBe(400);
  });

  it('keeps the password when it did not change since the request', async () => {
    const account = await signUp(ctx, uniqueEmail('careful'));
    const newEmail = uniqueEmail('careful-new');
    await changeEmail(account.token, { newEmail, currentPassword: PASSWORD });
    const undo = await cancelToken(account.email);
    await verify(linkToken((await mailTo(ctx, newEmail))[0], '/verify'));
    expect((await cancel(undo)).json()).toMatchObject({
      restored: true,
      email: account.email,
      passwordRemoved: false,
    });
    expect((await signIn(ctx, account.email, PASSWORD)).statusCode).toBe(200);
  });

  it('refuses unknown, malformed and expired links with one message', async () => {
    const account = await signUp(ctx, uniqueEmail('late'));
    await changeEmail(account.token, { newEmail: uniqueEmail('late-new'), currentPassword: PASSWORD });
    const undo = await cancelToken(account.email);
    ctx.clock.advance(7 * 24 * 3600_000 + 1000);
    for (const token of [undo, 'x'.repeat(43), 'short', '']) {
      const res = await cancel(token);
      expect(res.statusCode, token).toBe(400);
      expect(res.json()).toEqual({ error: 'This link is invalid or has expired', code: 'invalid_token' });
    }
  });
});

/**
 * An API key made with a stolen session or a stolen password must not outlive the owner taking the
 * account back (docs/decisions/0073-personal-api-keys.md, amended 2026-11-28).
 */
describe('API keys end when the account is taken back', () => {
  const makeKey = async (token: string) => {
    const res = await post('/api/keys', { name: 'Backup' }, token);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().key as string;
  };

  it('a password reset revokes every key', async () => {
    const owner = await createUser(ctx.db, { password: PASSWORD, now: ctx.clock.now() });
    const key = await makeKey(owner.token);
    expect((await me(key)).statusCode).toBe(200);
    const reset = await issueToken(ctx.db, { userId: owner.user.id, purpose: 'reset', now: ctx.clock.now() });
    expect(
      (await post('/api/auth/reset-password', { token: reset, newPassword: 'a brand new password' }))
        .statusCode,
    ).toBe(200);
    expect((await me(key)).statusCode).toBe(401);
    const keys = await ctx.db
      .selectFrom('api_keys')
      .select('id')
      .where('user_id', '=', owner.user.id)
      .execute();
    expect(keys).toEqual([]);
  });

  it('"this wasn\'t me" revokes every key, the one the intruder made above all', async () => {
    const victim = await createUser(ctx.db, {
      email: uniqueEmail('victim'),
      password: PASSWORD,
      now: ctx.clock.now(),
    });
    const intruderKey = await makeKey(victim.token);
    await changeEmail(victim.token, { newEmail: uniqueEmail('intruder'), currentPassword: PASSWORD });
    expect((await cancel(await cancelToken(victim.user.email))).statusCode).toBe(200);
    expect((await me(intruderKey)).statusCode).toBe(401);
  });

  it('changing the password, which needs the current one, keeps the keys that scripts use', async () => {
    const owner = await createUser(ctx.db, { password: PASSWORD, now: ctx.clock.now() });
    const key = await makeKey(owner.token);
    const res = await post(
      '/api/user/change-password',
      { currentPassword: PASSWORD, newPassword: 'another good password' },
      owner.token,
    );
    expect(res.statusCode).toBe(200);
    expect((await me(key)).statusCode).toBe(200);
  });
});
