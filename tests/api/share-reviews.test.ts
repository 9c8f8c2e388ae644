import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { REVIEW_RULES } from '../../src/server/features/email/review.service.ts';
import { REVIEW_MESSAGES } from '../../src/shared/review-rules.ts';
import { mailTo } from '../support/auth-api.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { insertVersion } from '../support/versions.ts';

/**
 * Reviews without an account (docs/decisions/0085-reviews-throttled-and-notified.md): validation,
 * text stored as given, the owner's detail and history badge, the decision mail and its switch.
 */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(async () => ctx?.close());

const HOSTILE = '<img src=x onerror=alert(1)>';

async function sharedEmail(owner: TestUser, subject = 'Launch email'): Promise<{ id: string; slug: string }> {
  const { id } = await insertEmail(ctx.db, {
    userId: owner.user.id,
    to: 'client@example.com',
    subject,
    html: '<p>Hello</p>',
    inlineCss: false,
    createdAt: ctx.clock.now(),
  });
  const res = await ctx.app.inject({ method: 'POST', url: `/api/email/${id}/share`, headers: owner.headers });
  return { id, slug: res.json().email.publicSlug as string };
}

const post = (slug: string, payload: object, ip = '198.51.100.7') =>
  ctx.app.inject({ method: 'POST', url: `/api/email/public/${slug}/reviews`, payload, remoteAddress: ip });
const decisionMail = async (owner: TestUser) =>
  (await mailTo(ctx, owner.user.email)).filter((m) => m.subject.includes('Launch email'));

describe('POST /api/email/public/{slug}/reviews', () => {
  it('stores a decision with a pin, shows it to the owner, badges the history and mails the owner', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const { id, slug } = await sharedEmail(owner);
    const res = await post(slug, {
      name: '  Dana from Acme ',
      decision: 'changes_requested',
      comment: 'Make the button green',
      version: 1,
      pin: { x: 0.25, y: 0.5, width: 600 },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().review).toMatchObject({
      name: 'Dana from Acme',
      decision: 'changes_requested',
      comment: 'Make the button green',
      version: 1,
      pin: { x: 0.25, y: 0.5, width: 600 },
      createdAt: ctx.clock.now().toISOString(),
    });
    expect(res.headers['x-robots-tag']).toContain('noindex');

    const detail = (
      await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: owner.headers })
    ).json();
    expect(detail.reviews).toEqual([res.json().review]);
    const history = await ctx.app.inject({ method: 'GET', url: '/api/email', headers: owner.headers });
    expect(history.json().items[0]).toMatchObject({
      id,
      latestDecision: { decision: 'changes_requested', version: 1 },
    });
    // The public page shows the conversation too.
    expect(
      (await ctx.app.inject({ method: 'GET', url: `/api/email/public/${slug}` })).json().reviews,
    ).toHaveLength(1);

    const [mail] = await decisionMail(owner);
    expect(mail).toBeDefined();
    expect(mail!.subject).toBe('Dana from Acme requested changes to “Launch email” (v1)');
    expect(mail!.text).toContain('Make the button green');
    expect(mail!.text).toContain(`/app/email/${id}`);

    // A plain comment mails nobody and leaves the badge alone; a later approval replaces it.
    expect(
      (await post(slug, { name: 'Dana', decision: 'comment', comment: 'Also the logo', version: 1 }))
        .statusCode,
    ).toBe(200);
    expect(await decisionMail(owner)).toHaveLength(1);
    ctx.clock.advance(1000);
    expect((await post(slug, { name: 'Dana', decision: 'approved', version: 1 })).statusCode).toBe(200);
    const badge = (await ctx.app.inject({ method: 'GET', url: '/api/email', headers: owner.headers })).json()
      .items[0];
    expect(badge.latestDecision).toEqual({ decision: 'approved', version: 1 });
    const mails = await decisionMail(owner);
    expect(mails).toHaveLength(2);
    expect(mails[1]!.subject).toBe('Dana approved “Launch email” (v1)');
  });

  it('a deleted version keeps its reviews in the conversation, and its number is never given to a new version', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const { id: first, slug } = await sharedEmail(owner);
    const thread = await ctx.db
      .selectFrom('emails')
      .select('thread_id')
      .where('id', '=', first)
      .executeTakeFirstOrThrow();
    const again = () =>
      insertEmail(ctx.db, {
        userId: owner.user.id,
        to: 'client@example.com',
        subject: 'Launch email',
        html: '<p>Hello again</p>',
        inlineCss: false,
        createdAt: ctx.clock.now(),
        threadId: thread.thread_id,
      });
    const { id: second } = await again();
    expect((await post(slug, { name: 'Dana', decision: 'approved', version: 2 })).statusCode).toBe(200);

    const deleted = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/email/${second}`,
      headers: owner.headers,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);
    // The row is gone (no delivery was under way), and with it the highest version of the thread.
    expect(await ctx.db.selectFrom('emails').select('id').where('id', '=', second).execute()).toEqual([]);

    // The next version is 3: the approval of the deleted 2 is not read as being about it.
    const { id: third } = await again();
    const detail = (
      await ctx.app.inject({ method: 'GET', url: `/api/email/${third}`, headers: owner.headers })
    ).json();
    expect(detail.version).toBe(3);
    expect(detail.reviews.map((r: { version: number; decision: string }) => [r.version, r.decision])).toEqual(
      [[2, 'approved']],
    );
  });

  it('keeps hostile names and comments exactly as given, as JSON text, and escapes them in the mail', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const { id, slug } = await sharedEmail(owner);
    const res = await post(slug, {
      name: HOSTILE,
      decision: 'approved',
      comment: `<script>alert(1)</script>${HOSTILE}`,
      version: 1,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json().review).toMatchObject({
      name: HOSTILE,
      comment: `<script>alert(1)</script>${HOSTILE}`,
    });
    const detail = (
      await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: owner.headers })
    ).json();
    expect(detail.reviews[0].name).toBe(HOSTILE);
    const [mail] = await decisionMail(owner);
    expect(mail!.html).not.toContain('<img src=x');
    expect(mail!.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('answers each invalid field with a message naming it, and stores nothing', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const { id, slug } = await sharedEmail(owner);
    const ok = { name: 'Dana', decision: 'approved', version: 1 };
    const cases: [object, string][] = [
      [{ ...ok, name: '   ' }, REVIEW_MESSAGES.nameRequired],
      [{ ...ok, name: 'x'.repeat(81) }, REVIEW_MESSAGES.nameTooLong],
      [{ ...ok, decision: 'maybe' }, REVIEW_MESSAGES.decision],
      [{ ...ok, decision: 'comment' }, REVIEW_MESSAGES.commentRequired],
      [{ ...ok, decision: 'comment', comment: '  ' }, REVIEW_MESSAGES.commentRequired],
      [{ ...ok, comment: 'y'.repeat(2001) }, REVIEW_MESSAGES.commentTooLong],
      [{ ...ok, version: 2 }, REVIEW_MESSAGES.version],
      [{ ...ok, pin: { x: 1.5, y: 0.2 } }, REVIEW_MESSAGES.pin],
      [{ ...ok, pin: { x: 0.5, y: -0.1 } }, REVIEW_MESSAGES.pin],
    ];
    for (const [payload, message] of cases) {
      const res = await post(slug, payload);
      expect(res.statusCode, JSON.stringify(payload).slice(0, 80)).toBe(400);
      expect(res.json().error).toBe(message);
    }
    // Exactly at the caps is fine (characters, not UTF-16 units).
    const atCaps = await post(slug, { ...ok, name: '😀'.repeat(80), comment: 'é'.repeat(2000) });
    expect(atCaps.statusCode).toBe(200);
    expect((await post(slug, { ...ok, extra: 1 })).statusCode).toBe(400);
    const detail = (
      await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: owner.headers })
    ).json();
    expect(detail.reviews).toHaveLength(1);
  });

  it('answers a dead or random link like a random slug', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const { id, slug } = await sharedEmail(owner);
    await ctx.app.inject({ method: 'DELETE', url: `/api/email/${id}/share`, headers: owner.headers });
    const dead = await post(slug, { name: 'Dana', decision: 'approved', version: 1 });
    const random = await post('r'.repeat(24), { name: 'Dana', decision: 'approved', version: 1 });
    expect(dead.statusCode).toBe(404);
    expect(dead.body).toBe(random.body);
  });

  it(`is throttled: ${REVIEW_RULES.perLinkAndIp.limit} per link and address, then 429 with Retry-After`, async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const { slug } = await sharedEmail(owner);
    for (let i = 0; i < REVIEW_RULES.perLinkAndIp.limit; i++) {
      expect(
        (
          await post(
            slug,
            { name: 'Bot', decision: 'comment', comment: `spam ${i}`, version: 1 },
            '203.0.113.5',
          )
        ).statusCode,
      ).toBe(200);
    }
    const blocked = await post(
      slug,
      { name: 'Bot', decision: 'comment', comment: 'more', version: 1 },
      '203.0.113.5',
    );
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.json().error).toMatch(/^Too many reviews\. Try again in/);
    // Another reviewer of the same link is not held back.
    expect(
      (await post(slug, { name: 'Dana', decision: 'approved', version: 1 }, '203.0.113.6')).statusCode,
    ).toBe(200);
  });

  it('takes the same review sent ten times at once (a double click, a retry) once: stored and mailed once', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const { id, slug } = await sharedEmail(owner);
    const review = {
      name: 'Rev',
      decision: 'approved',
      comment: 'Ship it',
      version: 1,
      pin: { x: 0.5, y: 0.5, width: 600 },
    };
    const answers = await Promise.all(Array.from({ length: 10 }, () => post(slug, review)));
    expect(answers.map((a) => a.statusCode)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => a.json().review.id)).size).toBe(1);
    const detail = await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: owner.headers });
    expect(detail.json().reviews).toHaveLength(1);
    expect(await decisionMail(owner)).toHaveLength(1);
    // Anything different is another review: a changed comment, or the same one much later.
    expect((await post(slug, { ...review, comment: 'Ship it now' })).json().review.id).not.toBe(
      answers[0]!.json().review.id,
    );
    ctx.clock.advance(11 * 60_000);
    expect((await post(slug, review)).json().review.id).not.toBe(answers[0]!.json().review.id);
  });
});

describe('what the review answer tells the reviewer', () => {
  // docs/decisions/0124-review-answer-tells-the-reviewer.md
  it('says whether a newer version exists than the one reviewed', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const { id, slug } = await sharedEmail(owner);
    // The client opened the page on v1; the owner then sent v2.
    await insertVersion(ctx.db, {
      userId: owner.user.id,
      threadId: id,
      version: 2,
      subject: 'Launch email',
      html: '<p>Hello, round two</p>',
      at: ctx.clock.now(),
    });
    const old = await post(slug, { name: 'Dana', decision: 'approved', version: 1 });
    expect(old.statusCode).toBe(200);
    expect(old.json()).toMatchObject({ review: { version: 1, decision: 'approved' }, newerVersion: 2 });
    // The same review again (a retry) is told too.
    expect((await post(slug, { name: 'Dana', decision: 'approved', version: 1 })).json()).toMatchObject({
      review: { id: old.json().review.id },
      newerVersion: 2,
    });
    const latest = await post(slug, { name: 'Dana', decision: 'approved', version: 2 });
    expect(latest.json()).toMatchObject({ review: { version: 2 }, newerVersion: null });
  });

  it('says the sender was told only when a mail to them was queued', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const { slug } = await sharedEmail(owner);
    const approval = await post(slug, { name: 'Dana', decision: 'approved', version: 1 });
    expect(approval.json()).toMatchObject({ notified: true, newerVersion: null });
    expect(await decisionMail(owner)).toHaveLength(1);
    // A plain comment mails nobody.
    const comment = await post(slug, { name: 'Dana', decision: 'comment', comment: 'Nice', version: 1 });
    expect(comment.statusCode).toBe(200);
    expect(comment.json().notified).toBe(false);
    // The same approval sent again is answered with the first, and mails nobody this time.
    expect((await post(slug, { name: 'Dana', decision: 'approved', version: 1 })).json().notified).toBe(
      false,
    );
    expect(await decisionMail(owner)).toHaveLength(1);

    // Notifications off: decisions are saved, not mailed, and the answer says so.
    await ctx.app.inject({
      method: 'PUT',
      url: '/api/user/review-notifications',
      headers: owner.headers,
      payload: { reviewNotifications: false },
    });
    const quiet = await post(slug, {
      name: 'Lee',
      decision: 'changes_requested',
      comment: 'Logo',
      version: 1,
    });
    expect(quiet.statusCode).toBe(200);
    expect(quiet.json().notified).toBe(false);
    expect(await decisionMail(owner)).toHaveLength(1);
  });
});

describe('DELETE /api/email/{id}/reviews[/{reviewId}]', () => {
  const del = (owner: TestUser, url: string) =>
    ctx.app.inject({ method: 'DELETE', url, headers: owner.headers });
  const reviewsOf = async (owner: TestUser, id: string) =>
    (await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: owner.headers })).json().reviews;

  it('the owner removes one review, then the rest; the public page and the history badge follow', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const { id, slug } = await sharedEmail(owner);
    const spam = (await post(slug, { name: 'Spam', decision: 'approved', version: 1 })).json().review;
    await post(slug, { name: 'Dana', decision: 'comment', comment: 'Looks good', version: 1 });
    await post(slug, { name: 'Lee', decision: 'comment', comment: 'Agreed', version: 1 });

    const one = await del(owner, `/api/email/${id}/reviews/${spam.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual({ deleted: 1 });
    expect((await reviewsOf(owner, id)).map((r: { name: string }) => r.name).sort()).toEqual(['Dana', 'Lee']);
    // The spam approval was the thread's only decision: the history's badge goes with it.
    const history = await ctx.app.inject({ method: 'GET', url: '/api/email', headers: owner.headers });
    expect(history.json().items[0]).toMatchObject({ id, latestDecision: null });
    // Gone is gone: a second delete of it is a 404.
    const again = await del(owner, `/api/email/${id}/reviews/${spam.id}`);
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({ error: REVIEW_MESSAGES.notFound, code: 'not_found' });

    const all = await del(owner, `/api/email/${id}/reviews`);
    expect(all.json()).toEqual({ deleted: 2 });
    expect(await reviewsOf(owner, id)).toEqual([]);
    expect(
      (await ctx.app.inject({ method: 'GET', url: `/api/email/public/${slug}` })).json().reviews,
    ).toEqual([]);
  });

  it("another user's email or review is not found, as a missing one is, and nothing is deleted", async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const other = await createUser(ctx.db, { plan: 'pro' });
    const { id, slug } = await sharedEmail(owner);
    const mine = await sharedEmail(other, 'Other email');
    const review = (await post(slug, { name: 'Dana', decision: 'comment', comment: 'Hi', version: 1 })).json()
      .review;

    for (const url of [
      `/api/email/${id}/reviews/${review.id}`,
      `/api/email/${id}/reviews`,
      `/api/email/00000000-0000-4000-8000-000000000000/reviews`,
    ]) {
      const res = await del(other, url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Email not found', code: 'not_found' });
    }
    // Through their own email: the review is of another thread.
    for (const reviewId of [review.id, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await del(other, `/api/email/${mine.id}/reviews/${reviewId}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: REVIEW_MESSAGES.notFound, code: 'not_found' });
    }
    expect(await reviewsOf(owner, id)).toHaveLength(1);
    const anonymous = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/email/${id}/reviews/${review.id}`,
    });
    expect(anonymous.statusCode).toBe(401);
    expect(await reviewsOf(owner, id)).toHaveLength(1);
  });
});

describe('review notifications setting', () => {
  it('GET and PUT /api/user/review-notifications; off means no mail for decisions', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const get = () =>
      ctx.app.inject({ method: 'GET', url: '/api/user/review-notifications', headers: owner.headers });
    const put = (payload: object) =>
      ctx.app.inject({
        method: 'PUT',
        url: '/api/user/review-notifications',
        headers: owner.headers,
        payload,
      });
    expect((await get()).json()).toEqual({ reviewNotifications: true });
    expect((await put({ reviewNotifications: false })).json()).toEqual({ reviewNotifications: false });
    expect((await get()).json()).toEqual({ reviewNotifications: false });
    const bad = await put({ reviewNotifications: 'no' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error).toMatch(/reviewNotifications/);
    for (const method of ['GET', 'PUT'] as const) {
      const res = await ctx.app.inject({
        method,
        url: '/api/user/review-notifications',
        payload: method === 'PUT' ? { reviewNotifications: true } : undefined,
      });
      expect(res.statusCode).toBe(401);
    }

    const { slug } = await sharedEmail(owner);
    expect((await post(slug, { name: 'Dana', decision: 'approved', version: 1 })).statusCode).toBe(200);
    expect(await decisionMail(owner)).toHaveLength(0);
    await put({ reviewNotifications: true });
    expect((await post(slug, { name: 'Dana', decision: 'changes_requested', version: 1 })).statusCode).toBe(
      200,
    );
    expect(await decisionMail(owner)).toHaveLength(1);
  });

  it('only its owner’s setting changes', async () => {
    const a = await createUser(ctx.db, { plan: 'pro' });
    const b = await createUser(ctx.db, { plan: 'pro' });
    await ctx.app.inject({
      method: 'PUT',
      url: '/api/user/review-notifications',
      headers: a.headers,
      payload: { reviewNotifications: false },
    });
    const res = await ctx.app.inject({
      method: 'GET',
      url: '/api/user/review-notifications',
      headers: b.headers,
    });
    expect(res.json()).toEqual({ reviewNotifications: true });
  });
});
