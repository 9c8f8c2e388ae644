import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { SHARE_RATE_RULE } from '../../src/server/features/email/share.routes.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * Public links after a Pro user drops to Free, and the share throttle
 * (docs/decisions/0036-public-links-after-pro.md).
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

async function emailOf(owner: TestUser, subject = 'For the client'): Promise<string> {
  const row = await insertEmail(ctx.db, {
    userId: owner.user.id,
    to: 'client@example.com',
    subject,
    html: `<p>${subject}</p>`,
    inlineCss: false,
    createdAt: ctx.clock.now(),
  });
  return row.id;
}
const call = (method: 'GET' | 'POST' | 'DELETE', url: string, who: TestUser) =>
  ctx.app.inject({ method, url, headers: who.headers });

describe('public links after the owner drops to Free', () => {
  it('keep working until the owner withdraws them, and the owner can always see and withdraw them', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const shared = await call('POST', `/api/email/${await emailOf(owner)}/share`, owner);
    expect(shared.statusCode).toBe(200);
    const slug = new URL(shared.json().publicUrl).pathname.split('/').pop()!;
    const publicView = () => ctx.app.inject({ method: 'GET', url: `/api/email/public/${slug}` });
    expect((await publicView()).statusCode).toBe(200);
    // A link passed on with tracking tags still opens; the version asked for is still checked.
    const tagged = await ctx.app.inject({
      method: 'GET',
      url: `/api/email/public/${slug}?utm_source=mail&v=1`,
    });
    expect(tagged.statusCode, tagged.body).toBe(200);
    expect((await ctx.app.inject({ method: 'GET', url: `/api/email/public/${slug}?v=0` })).statusCode).toBe(
      400,
    );

    await ctx.db
      .updateTable('users')
      .set({ plan: 'free', subscription_status: 'canceled' })
      .where('id', '=', owner.user.id)
      .execute();
    expect((await publicView()).statusCode).toBe(200);
    expect((await call('GET', '/api/email/shared', owner)).json()).toEqual({ count: 1 });
    // Sharing anything new needs Pro again.
    const more = await call('POST', `/api/email/${await emailOf(owner, 'Another')}/share`, owner);
    expect(more.statusCode).toBe(403);

    const withdrawn = await call('DELETE', '/api/email/shared', owner);
    expect(withdrawn.statusCode).toBe(200);
    expect(withdrawn.json()).toEqual({ ok: true, withdrawn: 1 });
    const gone = await publicView();
    const unknown = await ctx.app.inject({ method: 'GET', url: `/api/email/public/${'x'.repeat(24)}` });
    expect(gone.statusCode).toBe(404);
    expect(gone.body).toBe(unknown.body);
    expect((await call('GET', '/api/email/shared', owner)).json()).toEqual({ count: 0 });
  });

  it("counts and withdraws only the caller's own links", async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const other = await createUser(ctx.db, { plan: 'pro' });
    await call('POST', `/api/email/${await emailOf(owner)}/share`, owner);
    expect((await call('GET', '/api/email/shared', other)).json()).toEqual({ count: 0 });
    expect((await call('DELETE', '/api/email/shared', other)).json()).toEqual({ ok: true, withdrawn: 0 });
    expect((await call('GET', '/api/email/shared', owner)).json()).toEqual({ count: 1 });
    for (const method of ['GET', 'DELETE'] as const) {
      expect((await ctx.app.inject({ method, url: '/api/email/shared' })).statusCode).toBe(401);
    }
  });
});

describe('sharing is throttled per user', () => {
  it(`${SHARE_RATE_RULE.limit} share or withdraw calls per window, then 429 with Retry-After; others are not held back`, async () => {
    const user = await createUser(ctx.db, { plan: 'pro' });
    const id = await emailOf(user);
    for (let i = 0; i < SHARE_RATE_RULE.limit; i++) {
      const res = await call(i % 2 === 0 ? 'POST' : 'DELETE', `/api/email/${id}/share`, user);
      expect(res.statusCode, `call ${i + 1}`).toBe(200);
    }
    for (const [method, url] of [
      ['POST', `/api/email/${id}/share`],
      ['DELETE', `/api/email/${id}/share`],
      ['DELETE', '/api/email/shared'],
    ] as const) {
      const blocked = await call(method, url, user);
      expect(blocked.statusCode, `${method} ${url}`).toBe(429);
      expect(blocked.json().error).toMatch(/^Too many sharing changes\. Try again in \d+ minutes?\.$/);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    }
    const other = await createUser(ctx.db, { plan: 'pro' });
    expect((await call('POST', `/api/email/${await emailOf(other)}/share`, other)).statusCode).toBe(200);
  });
});
