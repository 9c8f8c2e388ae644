import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/server/accounts/account-mail.ts';
import { COMMON_PASSWORDS } from '../../src/server/accounts/common-passwords.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { bearer, signIn, signUp } from '../support/auth-api.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

/**
 * The new-password rule on every door that sets one: sign-up, reset and change
 * (docs/decisions/0035-password-rule.md).
 */

const REFUSED: [string, string][] = [
  [' '.repeat(8), 'Password cannot be only spaces'],
  ['\t'.repeat(4) + ' '.repeat(6), 'Password cannot be only spaces'],
  ['password', 'This password is too common. Choose one that is harder to guess.'],
  ['12345678', 'This password is too common. Choose one that is harder to guess.'],
  ['PassWord1', 'This password is too common. Choose one that is harder to guess.'],
  ['iloveyou', 'This password is too common. Choose one that is harder to guess.'],
  ['short', 'Password must be at least 8 characters'],
];

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'none' } });
});
afterAll(async () => ctx?.close());

describe('the password rule', () => {
  it('the vendored list holds the 10,000 most common passwords of at least 8 characters', () => {
    const list = COMMON_PASSWORDS.split('\n');
    expect(list).toHaveLength(10_000);
    expect(new Set(list).size).toBe(10_000);
    expect(list.slice(0, 3)).toEqual(['password', '12345678', '123456789']);
    expect(list.every((p) => [...p].length >= 8 && p === p.toLowerCase())).toBe(true);
  });

  it('sign-up refuses whitespace-only and common passwords and creates nothing', async () => {
    for (const [password, error] of REFUSED) {
      const email = uniqueEmail('weak');
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/signup',
        payload: { email, password },
      });
      expect(res.statusCode, JSON.stringify(password)).toBe(400);
      expect(res.json()).toEqual({ error, code: 'weak_password' });
      const row = await ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
      expect(row).toBeUndefined();
    }
  });

  it('a reset link cannot set one either, and stays usable', async () => {
    const account = await signUp(ctx);
    const token = await issueToken(ctx.db, {
      userId: account.userId,
      purpose: 'reset',
      now: ctx.clock.now(),
    });
    for (const [newPassword, error] of REFUSED) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/auth/reset-password',
        payload: { token, newPassword },
      });
      expect(res.statusCode, JSON.stringify(newPassword)).toBe(400);
      expect(res.json()).toEqual({ error, code: 'weak_password' });
    }
    const ok = await ctx.app.inject({
      method: 'POST',
      url: '/api/auth/reset-password',
      payload: { token, newPassword: 'a much less common one' },
    });
    expect(ok.statusCode).toBe(200);
  });

  it('neither can a password change', async () => {
    const account = await signUp(ctx);
    for (const [newPassword, error] of REFUSED) {
      const res = await ctx.app.inject({
        method: 'POST',
        url: '/api/user/change-password',
        headers: bearer(account.token),
        payload: { currentPassword: PASSWORD, newPassword },
      });
      expect(res.statusCode, JSON.stringify(newPassword)).toBe(400);
      expect(res.json()).toEqual({ error, code: 'weak_password' });
    }
    expect((await signIn(ctx, account.email, PASSWORD)).statusCode).toBe(200);
  });

  it('is never trimmed: spaces around a password are part of it', async () => {
    const password = '  my own passphrase  ';
    const account = await signUp(ctx, uniqueEmail('spaces'), password);
    expect((await signIn(ctx, account.email, password)).statusCode).toBe(200);
    expect((await signIn(ctx, account.email, password.trim())).statusCode).toBe(401);
  });
});
