import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { UNLOCK_RULES } from '../../src/server/features/email/public-view.service.ts';
import { REVIEW_MESSAGES } from '../../src/shared/review-rules.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { insertVersion } from '../support/versions.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * Sharing follows the thread, with expiry, a viewing password, rotation and revocation
 * (docs/decisions/0083-share-per-thread.md, docs/decisions/0084-viewer-tokens.md).
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const DAY = 24 * 3600_000;
const SUBJECT = 'Spring sale, round one';
const HTML = '<h1>Secret launch copy</h1>';

async function firstVersion(owner: TestUser, subject = SUBJECT, html = HTML): Promise<string> {
  const row = await insertEmail(ctx.db, {
    userId: owner.user.id,
    to: 'client@example.com',
    subject,
    html,
    inlineCss: false,
    createdAt: ctx.clock.now(),
  });
  return row.id;
}

const owned = (method: 'GET' | 'POST' | 'DELETE', url: string, who: TestUser, payload?: object) =>
  ctx.app.inject({ method, url, headers: who.headers, payload });
const share = (id: string, who: TestUser, payload?: object) =>
  owned('POST', `/api/email/${id}/share`, who, payload);
const slugOf = (res: LightMyRequestResponse): string => res.json().email.publicSlug as string;
const view = (slug: string, opts: { token?: string; v?: number; ip?: string } = {}) =>
  ctx.app.inject({
    method: 'GET',
    url: `/api/email/public/${slug}${opts.v ? `?v=${opts.v}` : ''}`,
    headers: opts.token ? { 'x-viewer-token': opts.token } : {},
    remoteAddress: opts.ip,
  });
const unlock = (slug: string, password: string, ip = '198.51.100.1') =>
  ctx.app.inject({
    method: 'POST',
    url: `/api/email/public/${slug}/unlock`,
    payload: { password },
    remoteAddress: ip,
  });

const randomSlug = () => `r${Math.random().toString(36).slice(2)}${'0'.repeat(20)}`.slice(0, 24);

/** A dead link answers exactly like a slug that never existed: status, body and headers. */
async function expectLikeRandom(res: LightMyRequestResponse): Promise<void> {
  const unknown = await view(randomSlug());
  expect(res.statusCode).toBe(404);
  expect(res.statusCode).toBe(unknown.statusCode);
  expect(res.rawPayload.equals(unknown.rawPayload)).toBe(true);
  const headers = (r: LightMyRequestResponse) => {
    const { date: _date, ...rest } = r.headers;
    return rest;
  };
  expect(headers(res)).toEqual(headers(unknown));
}

describe('the link follows the thread', () => {
  it('shows the latest version by default, any version by ?v=, and lists every version', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const v1 = await firstVersion(owner);
    const slug = slugOf(await share(v1, owner));
    const v2 = await insertVersion(ctx.db, {
      userId: owner.user.id,
      threadId: v1,
      version: 2,
      subject: 'Spring sale, round two',
      html: '<h1>Round two</h1>',
      at: ctx.clock.now(),
    });

    const latest = await view(slug);
    expect(latest.statusCode).toBe(200);
    expect(latest.json()).toMatchObject({ id: v2, subject: 'Spring sale, round two', version: 2 });
    expect(latest.json().versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
    expect((await view(slug, { v: 1 })).json()).toMatchObject({ id: v1, html: HTML, version: 1 });
    const missing = await view(slug, { v: 9 });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'Version not found', code: 'version_not_found' });
    expect((await ctx.app.inject({ method: 'GET', url: `/api/email/public/${slug}?v=0` })).statusCode).toBe(
      400,
    );

    // Every version of the thread carries the one link.
    const detail = await owned('GET', `/api/email/${v2}`, owner);
    expect(detail.json()).toMatchObject({ isPublic: true, publicSlug: slug });
    expect(detail.json().share).toEqual({
      views: 2, // two answers with the email; the missing version counted nothing
      lastViewedAt: ctx.clock.now().toISOString(),
      expiresAt: null,
      expiresInDays: null,
      protected: false,
    });
    // Sharing the second version again keeps the thread's link.
    expect(slugOf(await share(v2, owner))).toBe(slug);
    expect((await owned('GET', '/api/email/shared', owner)).json()).toEqual({ count: 1 });
  });

  it('counts views and the last view for the owner', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const id = await firstVersion(owner);
    const slug = slugOf(await share(id, owner));
    expect((await owned('GET', `/api/email/${id}`, owner)).json().share).toMatchObject({
      views: 0,
      lastViewedAt: null,
    });
    await view(slug);
    ctx.clock.advance(60_000);
    await view(slug);
    expect((await owned('GET', `/api/email/${id}`, owner)).json().share).toMatchObject({
      views: 2,
      lastViewedAt: ctx.clock.now().toISOString(),
    });
    // A random slug counts nothing anywhere.
    await view(randomSlug());
    expect((await owned('GET', `/api/email/${id}`, owner)).json().share.views).toBe(2);
  });

  it('deleting one version keeps the link; deleting every version removes the link and its reviews', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const v1 = await firstVersion(owner);
    const slug = slugOf(await share(v1, owner));
    const v2 = await insertVersion(ctx.db, {
      userId: owner.user.id,
      threadId: v1,
      version: 2,
      subject: 'Second',
      html: '<p>2</p>',
      at: ctx.clock.now(),
    });
    const review = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/public/${slug}/reviews`,
      payload: { name: 'Client', decision: 'comment', comment: 'Looks good', version: 2 },
    });
    expect(review.statusCode).toBe(200);

    expect((await owned('DELETE', `/api/email/${v2}`, owner)).statusCode).toBe(200);
    const after = await view(slug);
    expect(after.json()).toMatchObject({ id: v1, version: 1 });
    expect(after.json().reviews).toHaveLength(1);

    expect((await owned('DELETE', `/api/email/${v1}`, owner)).statusCode).toBe(200);
    await expectLikeRandom(await view(slug));
    const left = await ctx.db.selectFrom('email_shares').select('slug').where('thread_id', '=', v1).execute();
    const reviews = await ctx.db
      .selectFrom('email_reviews')
      .select('id')
      .where('thread_id', '=', v1)
      .execute();
    expect([left, reviews]).toEqual([[], []]);
  });

  it('Delete All Versions removes the link and its reviews at once', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const v1 = await firstVersion(owner);
    const slug = slugOf(await share(v1, owner));
    const v2 = await insertVersion(ctx.db, {
      userId: owner.user.id,
      threadId: v1,
      version: 2,
      subject: 'Second',
      html: '<p>2</p>',
      at: ctx.clock.now(),
    });
    const review = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/public/${slug}/reviews`,
      payload: { name: 'Client', decision: 'approved', version: 2 },
    });
    expect(review.statusCode).toBe(200);

    const deleted = await owned('DELETE', `/api/email/${v2}/versions`, owner);
    expect(deleted.json()).toEqual({ ok: true, deleted: 2 });
    await expectLikeRandom(await view(slug));
    const left = await ctx.db.selectFrom('email_shares').select('slug').where('thread_id', '=', v1).execute();
    const reviews = await ctx.db
      .selectFrom('email_reviews')
      .select('id')
      .where('thread_id', '=', v1)
      .execute();
    expect([left, reviews]).toEqual([[], []]);
  });
});

describe('share settings', () => {
  it('sets and changes the expiry; an expired link answers like a random slug and sharing again mints a new one', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const id = await firstVersion(owner);
    const res = await share(id, owner, { expiresInDays: 7 });
    expect(res.statusCode).toBe(200);
    const slug = slugOf(res);
    expect(res.json().publicUrl).toMatch(new RegExp(`/s/${slug}$`));
    expect(res.json().email.share.expiresAt).toBe(
      new Date(ctx.clock.now().getTime() + 7 * DAY).toISOString(),
    );
    // The chosen length is kept, so the dialog can show it again.
    expect(res.json().email.share.expiresInDays).toBe(7);
    expect((await owned('GET', `/api/email/${id}`, owner)).json().share.expiresInDays).toBe(7);
    // Absent settings stay as they are; null means never.
    expect((await share(id, owner, {})).json().email.share).toMatchObject({ expiresInDays: 7 });
    expect((await share(id, owner, {})).json().email.share.expiresAt).not.toBeNull();
    expect((await share(id, owner, { expiresInDays: null })).json().email.share).toMatchObject({
      expiresAt: null,
      expiresInDays: null,
    });
    const oneDay = (await share(id, owner, { expiresInDays: 1 })).json().email.share;
    expect(oneDay.expiresAt).toBe(new Date(ctx.clock.now().getTime() + DAY).toISOString());
    expect(oneDay.expiresInDays).toBe(1);
    // A refused length changes nothing.
    expect((await share(id, owner, { expiresInDays: 3 })).statusCode).toBe(400);
    expect((await owned('GET', `/api/email/${id}`, owner)).json().share).toMatchObject({
      expiresAt: oneDay.expiresAt,
      expiresInDays: 1,
    });

    ctx.clock.advance(DAY + 1000);
    await expectLikeRandom(await view(slug));
    const detail = (await owned('GET', `/api/email/${id}`, owner)).json();
    expect(detail).toMatchObject({ isPublic: false, publicSlug: null });
    expect(new Date(detail.share.expiresAt).getTime()).toBeLessThan(ctx.clock.now().getTime());
    expect((await owned('GET', '/api/email/shared', owner)).json()).toEqual({ count: 0 });
    const rotate = await owned('POST', `/api/email/${id}/share/rotate`, owner);
    expect(rotate.statusCode).toBe(400);
    expect(rotate.json().error).toBe('This email has no working public link to rotate');

    const again = await share(id, owner);
    const fresh = slugOf(again);
    expect(fresh).not.toBe(slug);
    // A new link, with the expired one's length from now (docs/decisions/0123-renewed-link-keeps-its-protection.md).
    expect(again.json().email.share).toMatchObject({
      views: 0,
      expiresAt: new Date(ctx.clock.now().getTime() + DAY).toISOString(),
      expiresInDays: 1,
    });
    expect((await view(fresh)).statusCode).toBe(200);
    await expectLikeRandom(await view(slug));
  });

  it('a new link replacing an expired one keeps its password and an expiry of the same length, from now', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const id = await firstVersion(owner);
    const dead = slugOf(await share(id, owner, { expiresInDays: 7, password: 'hunter22' }));
    await ctx.db
      .updateTable('email_shares')
      .set({ expires_at: new Date(ctx.clock.now().getTime() - 1000) })
      .where('thread_id', '=', id)
      .execute();
    await expectLikeRandom(await view(dead));
    // What the owner reads while it is dead: still protected, set for 7 days.
    expect((await owned('GET', `/api/email/${id}`, owner)).json()).toMatchObject({
      isPublic: false,
      share: { protected: true, expiresInDays: 7 },
    });

    // Turned on again as the dialog and any API caller do it: no settings named.
    const again = await share(id, owner);
    expect(again.statusCode).toBe(200);
    const fresh = slugOf(again);
    expect(fresh).not.toBe(dead);
    expect(again.json().email.share).toEqual({
      views: 0,
      lastViewedAt: null,
      expiresAt: new Date(ctx.clock.now().getTime() + 7 * DAY).toISOString(),
      expiresInDays: 7,
      protected: true,
    });
    // Nothing of the email without the password, which is the one it had.
    const anonymous = await view(fresh);
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json().code).toBe('password_required');
    expect(anonymous.body).not.toContain('Secret launch copy');
    expect((await unlock(fresh, 'wrong one', '198.51.100.40')).statusCode).toBe(401);
    const token = (await unlock(fresh, 'hunter22', '198.51.100.40')).json().token as string;
    expect((await view(fresh, { token })).json()).toMatchObject({ html: HTML });
    await ctx.db
      .updateTable('email_shares')
      .set({ expires_at: new Date(ctx.clock.now().getTime() - 1000) })
      .where('thread_id', '=', id)
      .execute();
    await expectLikeRandom(await view(fresh));

    // A setting the call names wins: the owner may open it on purpose, and for good.
    const opened = await share(id, owner, { password: null, expiresInDays: null });
    expect(opened.json().email.share).toMatchObject({
      expiresAt: null,
      expiresInDays: null,
      protected: false,
    });
    expect((await view(slugOf(opened))).statusCode).toBe(200);
  });

  it('an expired link whose length was not kept comes back with the shortest expiry, not never', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const id = await firstVersion(owner);
    await share(id, owner, { expiresInDays: 30 });
    // As set before migration 0022 kept lengths: a moment only.
    await ctx.db
      .updateTable('email_shares')
      .set({ expires_at: new Date(ctx.clock.now().getTime() - 1000), expires_in_days: null })
      .where('thread_id', '=', id)
      .execute();
    expect((await share(id, owner)).json().email.share).toMatchObject({
      expiresAt: new Date(ctx.clock.now().getTime() + DAY).toISOString(),
      expiresInDays: 1,
      protected: false,
    });
  });

  it('rotates: a new slug, the old one dead like a random slug; revoking kills it the same way', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const id = await firstVersion(owner);
    const old = slugOf(await share(id, owner));
    await view(old);
    const rotated = await owned('POST', `/api/email/${id}/share/rotate`, owner);
    expect(rotated.statusCode).toBe(200);
    const fresh = slugOf(rotated);
    expect(fresh).not.toBe(old);
    expect(rotated.json().publicUrl).toMatch(new RegExp(`/s/${fresh}$`));
    expect(rotated.json().email.share.views).toBe(1);
    await expectLikeRandom(await view(old));
    expect((await view(fresh)).statusCode).toBe(200);

    expect((await owned('DELETE', `/api/email/${id}/share`, owner)).json().email).toMatchObject({
      isPublic: false,
      share: null,
    });
    await expectLikeRandom(await view(fresh));
  });

  it('answers each invalid setting with a message naming it, and changes nothing', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const id = await firstVersion(owner);
    const cases: [object, string][] = [
      [{ expiresInDays: 5 }, REVIEW_MESSAGES.expiry],
      [{ expiresInDays: 0 }, REVIEW_MESSAGES.expiry],
      [{ password: 'abc' }, REVIEW_MESSAGES.passwordShort],
      [{ password: 'x'.repeat(201) }, REVIEW_MESSAGES.passwordLong],
    ];
    for (const [payload, message] of cases) {
      const res = await share(id, owner, payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().error).toBe(message);
    }
    const unknownField = await share(id, owner, { expires: 7 });
    expect(unknownField.statusCode).toBe(400);
    expect((await owned('GET', `/api/email/${id}`, owner)).json().share).toBeNull();
  });

  it('needs a session, answers 404 for another user’s email and 403 on Free', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const other = await createUser(ctx.db, { plan: 'pro' });
    const free = await createUser(ctx.db);
    const id = await firstVersion(owner);
    await share(id, owner);
    for (const url of [`/api/email/${id}/share`, `/api/email/${id}/share/rotate`]) {
      expect((await ctx.app.inject({ method: 'POST', url })).statusCode).toBe(401);
      const res = await owned('POST', url, other, {});
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Email not found', code: 'not_found' });
    }
    const freeId = await firstVersion(free);
    expect((await share(freeId, free, { expiresInDays: 7 })).statusCode).toBe(403);
    expect((await owned('POST', `/api/email/${freeId}/share/rotate`, free)).statusCode).toBe(403);
  });
});

describe('a password for viewing', () => {
  it('answers 401 password_required with nothing of the email until a viewer token comes', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const id = await firstVersion(owner);
    const slug = slugOf(await share(id, owner, { password: 'open sesame' }));
    const locked = await view(slug);
    expect(locked.statusCode).toBe(401);
    expect(locked.json()).toEqual({ error: REVIEW_MESSAGES.passwordRequired, code: 'password_required' });
    expect(locked.headers['x-robots-tag']).toContain('noindex');
    expect(locked.headers['referrer-policy']).toBe('no-referrer');
    for (const res of [locked, await view(slug, { v: 1 }), await view(slug, { token: 'forged.token' })]) {
      expect(res.statusCode).toBe(401);
      expect(res.body).not.toContain('Secret launch copy');
      expect(res.body).not.toContain(SUBJECT);
    }
    const review = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/public/${slug}/reviews`,
      payload: { name: 'Client', decision: 'approved', version: 1 },
    });
    expect(review.statusCode).toBe(401);
    expect((await owned('GET', `/api/email/${id}`, owner)).json().share).toMatchObject({
      protected: true,
      views: 0,
    });

    const wrong = await unlock(slug, 'open sesam');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: 'Wrong password', code: 'wrong_password' });
    // A link that does not exist, or has no password, answers the same.
    const nowhere = await unlock(randomSlug(), 'open sesame');
    expect([nowhere.statusCode, nowhere.body]).toEqual([wrong.statusCode, wrong.body]);
    const openSlug = slugOf(await share(await firstVersion(owner), owner));
    const unprotected = await unlock(openSlug, 'anything');
    expect([unprotected.statusCode, unprotected.body]).toEqual([wrong.statusCode, wrong.body]);

    const ok = await unlock(slug, 'open sesame');
    expect(ok.statusCode).toBe(200);
    const { token, expiresAt } = ok.json() as { token: string; expiresAt: string };
    expect(new Date(expiresAt).getTime()).toBe(ctx.clock.now().getTime() + 2 * 3600_000);
    const opened = await view(slug, { token });
    expect(opened.statusCode).toBe(200);
    expect(opened.json()).toMatchObject({ subject: SUBJECT, html: HTML });
    // The token belongs to this link only.
    expect((await view(openSlug, { token })).statusCode).toBe(200);
    const otherLocked = slugOf(await share(await firstVersion(owner), owner, { password: 'open sesame' }));
    expect((await view(otherLocked, { token })).statusCode).toBe(401);

    // Short-lived.
    ctx.clock.advance(2 * 3600_000 + 1);
    expect((await view(slug, { token })).statusCode).toBe(401);
  });

  it('a password change, a rotation or removing the password ends every unlock', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const id = await firstVersion(owner);
    const slug = slugOf(await share(id, owner, { password: 'first pass' }));
    const token1 = (await unlock(slug, 'first pass')).json().token as string;
    expect((await view(slug, { token: token1 })).statusCode).toBe(200);

    await share(id, owner, { password: 'second pass' });
    expect((await view(slug, { token: token1 })).statusCode).toBe(401);
    expect((await unlock(slug, 'first pass')).statusCode).toBe(401);
    const token2 = (await unlock(slug, 'second pass')).json().token as string;
    expect((await view(slug, { token: token2 })).statusCode).toBe(200);
    // Settings that do not touch the password keep unlocks alive.
    await share(id, owner, { expiresInDays: 30 });
    expect((await view(slug, { token: token2 })).statusCode).toBe(200);

    const fresh = slugOf(await owned('POST', `/api/email/${id}/share/rotate`, owner));
    expect((await view(fresh, { token: token2 })).statusCode).toBe(401);
    const token3 = (await unlock(fresh, 'second pass')).json().token as string;
    expect((await view(fresh, { token: token3 })).statusCode).toBe(200);

    const removed = await share(id, owner, { password: null });
    expect(removed.json().email.share.protected).toBe(false);
    expect((await view(fresh)).statusCode).toBe(200);
  });

  it(`${UNLOCK_RULES.perLink.limit} wrong passwords on a link, then 429 with a retry time, even for the right one`, async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const slug = slugOf(await share(await firstVersion(owner), owner, { password: 'open sesame' }));
    for (let i = 0; i < 20; i++) {
      // From many addresses: the per-link count holds whoever guesses.
      const res = await unlock(slug, `guess ${i}`, `192.0.2.${i + 1}`);
      expect(res.statusCode, `guess ${i + 1}`).toBe(401);
    }
    const blocked = await unlock(slug, 'open sesame', '192.0.2.200');
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.json().error).toMatch(/^Too many wrong passwords\. Try again in \d+ minutes?\.$/);
    expect(blocked.headers['x-robots-tag']).toContain('noindex');
  });

  it('a right password does not count; wrong ones are also limited per address across links', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const slug = slugOf(await share(await firstVersion(owner), owner, { password: 'open sesame' }));
    for (let i = 0; i < 30; i++)
      expect((await unlock(slug, 'open sesame', '192.0.2.250')).statusCode).toBe(200);
    const ip = '203.0.113.99';
    for (let i = 0; i < UNLOCK_RULES.perIp.limit; i++) {
      expect((await unlock(randomSlug(), 'guess', ip)).statusCode).toBe(401);
    }
    expect((await unlock(slug, 'open sesame', ip)).statusCode).toBe(429);
    expect((await unlock(slug, 'open sesame', '203.0.113.100')).statusCode).toBe(200);
  });

  it('validates the unlock body', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/public/${randomSlug()}/unlock`,
      payload: {},
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/password/);
  });
});
