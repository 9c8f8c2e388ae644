import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_RULES } from '../../src/server/features/auth/rate-rules.ts';
import { hitRateLimit } from '../../src/server/http/rate-limit.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { signIn, signUp } from '../support/auth-api.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

/**
 * Guessing is slowed down per (account, address) pair instead of locking the account, and a
 * browser that signed in before always gets in with the right password
 * (docs/decisions/0034-sign-in-slowdown-and-known-devices.md).
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext({ env: { CAPTCHA_PROVIDER: 'none' } });
});
afterAll(async () => ctx?.close());

const from = (
  remoteAddress: string,
  cookie?: string,
): { remoteAddress: string; headers: Record<string, string> } => ({
  remoteAddress,
  headers: cookie ? { cookie } : {},
});
const retryAfter = (res: LightMyRequestResponse) => Number(res.headers['retry-after']);

/** The `pm_device=…` a successful sign-in sets. */
function deviceCookie(res: LightMyRequestResponse): string {
  const set = [res.headers['set-cookie'] ?? []].flat().map(String);
  const cookie = set.find((c) => c.startsWith('pm_device='));
  expect(cookie, set.join('\n')).toBeDefined();
  return cookie!.split(';')[0]!;
}

/** Wrong passwords from one address, waiting out each slowdown (the injected clock jumps). */
async function guess(email: string, remoteAddress: string, times: number): Promise<void> {
  for (let i = 0; i < times;) {
    const res = await signIn(ctx, email, `wrong guess ${i}`, from(remoteAddress));
    if (res.statusCode === 429) {
      ctx.clock.advance(retryAfter(res) * 1000);
      continue;
    }
    expect(res.statusCode, res.body).toBe(401);
    i++;
  }
}

describe('sign-in slows guessing down instead of locking the owner out', () => {
  it('20 wrong passwords from one address do not stop the owner signing in from another', async () => {
    const owner = await signUp(ctx, uniqueEmail('owner'));
    await guess(owner.email, '203.0.113.66', 20);
    const res = await signIn(ctx, owner.email, PASSWORD, from('198.51.100.5'));
    expect(res.statusCode, res.body).toBe(200);
  });

  it('after 5 free failures each one doubles the wait for that pair; the right password clears it', async () => {
    const account = await signUp(ctx, uniqueEmail('waits'));
    const ip = '203.0.113.7';
    for (let i = 0; i < 6; i++)
      expect((await signIn(ctx, account.email, 'nope nope', from(ip))).statusCode).toBe(401);
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const early = await signIn(ctx, account.email, 'nope nope', from(ip));
      expect(early.statusCode).toBe(429);
      expect(early.json()).toEqual({
        error: `Too many failed sign-ins. Try again in ${retryAfter(early)} seconds.`,
        code: 'rate_limited',
      });
      waits.push(retryAfter(early));
      // Even the right password waits: the pair is not told anything early.
      expect((await signIn(ctx, account.email, PASSWORD, from(ip))).statusCode).toBe(429);
      ctx.clock.advance(retryAfter(early) * 1000);
      expect((await signIn(ctx, account.email, 'nope nope', from(ip))).statusCode).toBe(401);
    }
    expect(waits).toEqual([2, 4, 8, 16]);
    ctx.clock.advance(32_000);
    expect((await signIn(ctx, account.email, PASSWORD, from(ip))).statusCode).toBe(200);
    // Back to zero: five free failures again.
    for (let i = 0; i < 5; i++)
      expect((await signIn(ctx, account.email, 'nope nope', from(ip))).statusCode).toBe(401);
  });

  it('an unknown address is slowed down exactly like a real one', async () => {
    const nobody = uniqueEmail('nobody');
    for (let i = 0; i < 6; i++)
      expect((await signIn(ctx, nobody, 'whatever pw', from('203.0.113.8'))).statusCode).toBe(401);
    const early = await signIn(ctx, nobody, 'whatever pw', from('203.0.113.8'));
    expect(early.statusCode).toBe(429);
    expect(retryAfter(early)).toBe(2);
  });

  it('parallel guesses cannot slip past a wait', async () => {
    const account = await signUp(ctx, uniqueEmail('parallel'));
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => signIn(ctx, account.email, 'parallel guess', from('203.0.113.9'))),
    );
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses.filter((s) => s === 401)).toHaveLength(6);
    expect(statuses.filter((s) => s === 429)).toHaveLength(14);
  });
});

describe('a known device', () => {
  it('is marked by an HttpOnly cookie for the sign-in route, set only by a successful sign-in', async () => {
    const account = await signUp(ctx, uniqueEmail('cookie'));
    const failed = await signIn(ctx, account.email, 'wrong password');
    expect(failed.headers['set-cookie']).toBeUndefined();
    const ok = await signIn(ctx, account.email);
    const set = String(ok.headers['set-cookie']);
    expect(set).toMatch(
      /^pm_device=[A-Za-z0-9_-]{43}; Max-Age=31536000; Path=\/api\/auth\/signin; HttpOnly; SameSite=Lax$/,
    );
    // Signing in again from that browser keeps its mark.
    const again = await signIn(ctx, account.email, PASSWORD, from('127.0.0.1', deviceCookie(ok)));
    expect(deviceCookie(again)).toBe(deviceCookie(ok));
  });

  it('signs in with the right password while guesses from many addresses hold the account for everyone else', async () => {
    const owner = await signUp(ctx, uniqueEmail('besieged'));
    const device = deviceCookie(await signIn(ctx, owner.email, PASSWORD, from('198.51.100.30')));
    // Successful sign-ins do not count towards the account's ceiling.
    for (let i = 0; i < 3; i++)
      expect((await signIn(ctx, owner.email, PASSWORD, from('198.51.100.30'))).statusCode).toBe(200);
    // Guesses from very many addresses: all but the last are counted straight into the account's
    // counter (each would be one argon2 check), the last comes through sign-in.
    const { limit } = RATE_RULES.signInPerAccount;
    for (let i = 0; i < limit - 1; i++) {
      await hitRateLimit(ctx.db, RATE_RULES.signInPerAccount, owner.email.toLowerCase(), ctx.clock.now());
    }
    expect((await signIn(ctx, owner.email, 'the last guess', from('10.1.2.3'))).statusCode).toBe(401);
    // A browser the account does not know waits, even with the right password…
    const stranger = await signIn(ctx, owner.email, PASSWORD, from('198.51.100.31'));
    expect(stranger.statusCode).toBe(429);
    expect(stranger.json().error).toMatch(/^Too many sign-in attempts\. Try again in \d+ minutes?\.$/);
    expect(retryAfter(stranger)).toBeGreaterThan(0);
    // …the owner's browser does not, from its usual address or from one an attacker slowed down.
    await guess(owner.email, '203.0.113.99', 8);
    for (const ip of ['198.51.100.30', '203.0.113.99']) {
      const res = await signIn(ctx, owner.email, PASSWORD, from(ip, device));
      expect(res.statusCode, ip).toBe(200);
    }
  });

  it('a device cookie of another account, or a forged one, earns nothing', async () => {
    const owner = await signUp(ctx, uniqueEmail('target'));
    const attacker = await signUp(ctx, uniqueEmail('attacker'));
    const attackerDevice = deviceCookie(await signIn(ctx, attacker.email));
    for (const cookie of [attackerDevice, `pm_device=${'A'.repeat(43)}`, 'pm_device=junk']) {
      for (let i = 0; i < 6; i++) await signIn(ctx, owner.email, 'guess guess', from('203.0.113.50', cookie));
      const res = await signIn(ctx, owner.email, 'guess guess', from('203.0.113.50', cookie));
      expect(res.statusCode, cookie).toBe(429);
      ctx.clock.advance(24 * 3600_000 + 1000); // the pair forgets
    }
  });
});
