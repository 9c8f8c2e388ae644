import { solveChallenge } from 'altcha-lib';
import { deriveKey } from 'altcha-lib/algorithms/sha';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { poll } from './poll.ts';
import type { TestContext } from './test-app.ts';
import { PASSWORD, uniqueEmail } from './users.ts';

/** The accounts API through app.inject: sign-up and sign-in, queued mail, captcha (auth-*, user-*, admin-* tests). */

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export interface SignedUp {
  email: string;
  password: string;
  token: string;
  userId: string;
}

/** Signs up through the API (the context must run with CAPTCHA_PROVIDER=none). */
export async function signUp(
  ctx: TestContext,
  email = uniqueEmail(),
  password = PASSWORD,
): Promise<SignedUp> {
  const res = await ctx.app.inject({ method: 'POST', url: '/api/auth/signup', payload: { email, password } });
  expect(res.statusCode, res.body).toBe(200);
  const body = res.json<{ token: string; user: { id: string } }>();
  return { email, password, token: body.token, userId: body.user.id };
}

export async function signIn(
  ctx: TestContext,
  email: string,
  password = PASSWORD,
  extra: { remoteAddress?: string; headers?: Record<string, string> } = {},
): Promise<LightMyRequestResponse> {
  return ctx.app.inject({
    method: 'POST',
    url: '/api/auth/signin',
    payload: { email, password },
    remoteAddress: extra.remoteAddress,
    headers: extra.headers,
  });
}

export interface OutboxMail {
  to_addresses: string[];
  subject: string;
  html: string;
  text: string | null;
  priority: number;
  created_at: Date;
}

/** Mail queued for an address, oldest first (the outbox is the one door for mail). */
export async function mailTo(ctx: TestContext, address: string): Promise<OutboxMail[]> {
  return ctx.db
    .selectFrom('mail_outbox')
    .select(['to_addresses', 'subject', 'html', 'text', 'priority', 'created_at'])
    .where((eb) => eb(eb.val(address), '=', eb.fn.any('to_addresses')))
    .orderBy('created_at')
    .orderBy('id')
    .execute() as Promise<OutboxMail[]>;
}

/** Waits for mail that is queued after the answer was sent (password reset requests). */
export async function waitForMail(
  ctx: TestContext,
  address: string,
  count = 1,
  match: (mail: OutboxMail) => boolean = () => true,
  timeoutMs = 10_000,
): Promise<OutboxMail[]> {
  return poll(
    async () => {
      const rows = (await mailTo(ctx, address)).filter(match);
      return rows.length >= count ? rows : undefined;
    },
    { timeoutMs, intervalMs: 25, what: `${count} matching mail(s) to ${address} in the outbox` },
  );
}

/** The token of the first `${publicUrl}${path}?token=…` link in a mail (text part). */
export function linkToken(mail: OutboxMail | undefined, path: '/verify' | '/reset-password'): string {
  expect(mail).toBeDefined();
  const match = new RegExp(`${path.replace('/', '\\/')}\\?token=([A-Za-z0-9_-]+)`).exec(mail!.text ?? '');
  expect(match, `no ${path} link in:\n${mail!.text}`).not.toBeNull();
  return match![1]!;
}

/** Asserts a response body leaks none of the given secrets, and no password hash at all. */
export function expectNoSecrets(res: LightMyRequestResponse, secrets: string[]): void {
  expect(res.body).not.toMatch(/\$argon2/);
  expect(res.body).not.toMatch(/password_?hash|token_?hash/i);
  for (const secret of secrets) if (secret) expect(res.body).not.toContain(secret);
}

/** Fetches a challenge from the app and solves it the way the widget does. */
export async function solveCaptcha(ctx: TestContext): Promise<string> {
  const res = await ctx.app.inject({ method: 'GET', url: '/api/auth/captcha/challenge' });
  expect(res.statusCode).toBe(200);
  const challenge = res.json();
  const solution = await solveChallenge({ challenge, deriveKey, timeout: 20_000 });
  expect(solution).not.toBeNull();
  return Buffer.from(
    JSON.stringify({
      challenge: { parameters: challenge.parameters, signature: challenge.signature },
      solution,
    }),
  ).toString('base64');
}
