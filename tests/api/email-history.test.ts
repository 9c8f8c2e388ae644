import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

describe('history, detail, sharing and the public view', () => {
  let ctx: TestContext;
  let pro: TestUser;
  let other: TestUser;
  let free: TestUser;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { PUBLIC_URL: 'https://proofmail.test' } });
    pro = await createUser(ctx.db, { plan: 'pro' });
    other = await createUser(ctx.db, { plan: 'pro' });
    free = await createUser(ctx.db, { plan: 'free' });
  });
  afterAll(async () => ctx?.close());

  const get = (url: string, u?: TestUser) => ctx.app.inject({ method: 'GET', url, headers: u?.headers });
  /** The ids a search by `u` lists. */
  const searchAs = (u: TestUser) => async (q: string) =>
    (await get(`/api/email?q=${encodeURIComponent(q)}`, u)).json().items.map((i: { id: string }) => i.id);
  const seed = (u: TestUser, values: { to?: string; subject?: string; html?: string; at?: Date }) =>
    insertEmail(ctx.db, {
      userId: u.user.id,
      to: values.to ?? 'client@example.com',
      subject: values.subject ?? 'Newsletter',
      html: values.html ?? '<p>Hello</p>',
      inlineCss: false,
      createdAt: values.at ?? new Date(),
    });

  it('pages 45 emails as 20/20/5, newest first, without duplicates or gaps', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const base = Date.parse('2026-01-01T00:00:00Z');
    const ids: string[] = [];
    for (let i = 0; i < 45; i++) {
      // Pairs share a timestamp so the id tiebreaker is exercised.
      ids.push((await seed(u, { subject: `n${i}`, at: new Date(base + Math.floor(i / 2) * 1000) })).id);
    }
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const res = await get(`/api/email?limit=20${cursor ? `&cursor=${cursor}` : ''}`, u);
      expect(res.statusCode).toBe(200);
      const body = res.json() as { items: { id: string; createdAt: string }[]; nextCursor: string | null };
      sizes.push(body.items.length);
      seen.push(...body.items.map((i) => i.id));
      cursor = body.nextCursor;
    } while (cursor);
    expect(sizes).toEqual([20, 20, 5]);
    expect(new Set(seen).size).toBe(45);
    expect(seen.sort()).toEqual([...ids].sort());
    const first = await get('/api/email?limit=20', u);
    const times = first.json().items.map((i: { createdAt: string }) => Date.parse(i.createdAt));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    expect(first.json().items[0]).not.toHaveProperty('html');
  });

  it('ignores query parameters it does not know, as a cache-buster or a tracking tag adds them', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const { id } = await seed(u, { subject: 'Busted' });
    const list = await get('/api/email?_=1700000000&utm_source=x', u);
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().items.map((i: { id: string }) => i.id)).toEqual([id]);
    // Known ones are still checked.
    expect((await get('/api/email?limit=abc&_=1', u)).statusCode).toBe(400);
    expect((await get(`/api/email/${id}/thumbnail.png?mode=sepia&_=1`, u)).json().code).toBe(
      'invalid_request',
    );
  });

  it('searches recipient, subject and HTML case-insensitively, with % and _ taken literally', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const a = await seed(u, { to: 'Zebra@Example.com', subject: 's1', html: '<p>a</p>' });
    const b = await seed(u, { subject: 'Quarterly UPDATE', html: '<p>b</p>' });
    const c = await seed(u, { subject: 's3', html: '<p>Flamingo sale</p>' });
    const d = await seed(u, { subject: '100% off_now', html: '<p>d</p>' });
    await seed(u, { subject: '100 percent offXnow', html: '<p>e</p>' });
    const search = searchAs(u);
    expect(await search('zebra@example')).toEqual([a.id]);
    expect(await search('quarterly update')).toEqual([b.id]);
    expect(await search('FLAMINGO')).toEqual([c.id]);
    expect(await search('100%')).toEqual([d.id]);
    expect(await search('off_now')).toEqual([d.id]);
    expect(await search('%')).toEqual([d.id]);
    expect(await search('nothing-matches-this')).toEqual([]);
  });

  it('searches case-insensitively beyond ASCII: accents, Greek, Cyrillic', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const a = await seed(u, { subject: 'Émile, votre ÉTÉ commence', html: '<p>a</p>' });
    const b = await seed(u, { subject: 's2', html: '<p>Ünser Angebot für Sie</p>' });
    const c = await seed(u, { subject: 'ΚΑΛΗΜΕΡΑ', html: '<p>Привет, МИР</p>' });
    const search = searchAs(u);
    expect(await search('émile')).toEqual([a.id]);
    expect(await search('été')).toEqual([a.id]);
    expect(await search('ünser')).toEqual([b.id]);
    expect(await search('FÜR')).toEqual([b.id]);
    expect(await search('καλημέρα')).toEqual([]);
    expect(await search('καλημερα')).toEqual([c.id]);
    expect(await search('мир')).toEqual([c.id]);
  });

  it('finds a recipient with an internationalised domain by its Unicode form too', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    // Recipients are stored in ASCII, as the send takes them (src/shared/recipients.ts).
    const a = await seed(u, { to: 'ann@xn--bcher-kva.example', subject: 'Hallo' });
    await seed(u, { to: 'bob@example.com', subject: 'Bücher für Bob' });
    const search = searchAs(u);
    expect(await search('ann@bücher.example')).toEqual([a.id]);
    expect(await search('BÜCHER.example')).toEqual([a.id]);
    expect(await search('xn--bcher-kva')).toEqual([a.id]);
    // A subject or HTML is searched as written: "Bücher" finds both.
    expect(await search('bücher')).toHaveLength(2);
  });
  it('answers 403 plan_required to free users for the list and for sharing', async () => {
    const list = await get('/api/email', free);
    expect(list.statusCode).toBe(403);
    expect(list.json().code).toBe('plan_required');
    const mine = await seed(free, {});
    const share = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/${mine.id}/share`,
      headers: free.headers,
    });
    expect(share.statusCode).toBe(403);
    expect(share.json().code).toBe('plan_required');
    // A free user may always open their own email.
    expect((await get(`/api/email/${mine.id}`, free)).statusCode).toBe(200);
  });

  it('answers 401 without a session on every email route', async () => {
    const { id } = await seed(pro, {});
    for (const [method, url] of [
      ['GET', '/api/email'],
      ['GET', `/api/email/${id}`],
      ['DELETE', `/api/email/${id}`],
      ['POST', `/api/email/${id}/share`],
      ['DELETE', `/api/email/${id}/share`],
      ['GET', '/api/user/usage'],
    ] as const) {
      expect((await ctx.app.inject({ method, url })).statusCode).toBe(401);
    }
  });

  it("answers 404 for another user's email on get, delete, share and unshare, changing nothing", async () => {
    const { id } = await seed(other, { subject: 'private' });
    for (const [method, url] of [
      ['GET', `/api/email/${id}`],
      ['DELETE', `/api/email/${id}`],
      ['POST', `/api/email/${id}/share`],
      ['DELETE', `/api/email/${id}/share`],
    ] as const) {
      const res = await ctx.app.inject({ method, url, headers: pro.headers });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Email not found', code: 'not_found' });
    }
    const row = await ctx.db.selectFrom('emails').selectAll().where('id', '=', id).executeTakeFirst();
    expect(row).toMatchObject({ subject: 'private' });
    expect(await ctx.db.selectFrom('email_shares').selectAll().where('thread_id', '=', id).execute()).toEqual(
      [],
    );
    expect((await get(`/api/email/not-a-uuid`, pro)).statusCode).toBe(404);
  });

  it('shares, serves the public view with only public fields, unshares, and deleted or withdrawn slugs look unknown', async () => {
    const { id } = await seed(pro, { subject: 'For the client', html: '<h1>Hi client</h1>' });
    const shared = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/${id}/share`,
      headers: pro.headers,
    });
    expect(shared.statusCode).toBe(200);
    const { publicUrl, email } = shared.json();
    expect(email).toMatchObject({ id, isPublic: true });
    const slug = email.publicSlug as string;
    expect(publicUrl).toBe(`https://proofmail.test/s/${slug}`);
    expect(Buffer.from(slug, 'base64url').length * 8).toBeGreaterThanOrEqual(128);
    // Sharing again keeps the same link.
    const again = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/${id}/share`,
      headers: pro.headers,
    });
    expect(again.json().publicUrl).toBe(publicUrl);

    const pub = await get(`/api/email/public/${slug}`);
    expect(pub.statusCode).toBe(200);
    expect(Object.keys(pub.json()).sort()).toEqual([
      'createdAt',
      'html',
      'id',
      'reviews',
      'subject',
      'version',
      'versions',
    ]);
    expect(pub.json()).toMatchObject({ id, subject: 'For the client', html: '<h1>Hi client</h1>' });
    expect(pub.headers['x-robots-tag']).toContain('noindex');
    expect(pub.headers['referrer-policy']).toBe('no-referrer');

    const random = await get(`/api/email/public/${randomBytes(18).toString('base64url')}`);
    expect(random.statusCode).toBe(404);

    const unshared = await ctx.app.inject({
      method: 'DELETE',
      url: `/api/email/${id}/share`,
      headers: pro.headers,
    });
    expect(unshared.statusCode).toBe(200);
    expect(unshared.json().email).toMatchObject({ isPublic: false, publicSlug: null });
    const withdrawn = await get(`/api/email/public/${slug}`);
    expect(withdrawn.statusCode).toBe(random.statusCode);
    expect(withdrawn.body).toBe(random.body);

    const reshared = await ctx.app.inject({
      method: 'POST',
      url: `/api/email/${id}/share`,
      headers: pro.headers,
    });
    const newSlug = reshared.json().email.publicSlug as string;
    expect(newSlug).not.toBe(slug);
    const del = await ctx.app.inject({ method: 'DELETE', url: `/api/email/${id}`, headers: pro.headers });
    expect(del.statusCode).toBe(200);
    const deleted = await get(`/api/email/public/${newSlug}`);
    expect(deleted.statusCode).toBe(random.statusCode);
    expect(deleted.body).toBe(random.body);
    expect((await get(`/api/email/${id}`, pro)).statusCode).toBe(404);
  });

  it('shows the delivery state with the server reply when a delivery failed', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: pro.headers,
      payload: { to: 'a@example.com', html: '<p>x</p>' },
    });
    const id = res.json().id as string;
    expect((await get(`/api/email/${id}`, pro)).json().delivery).toMatchObject({
      state: 'queued',
      error: null,
    });
    await ctx.db
      .updateTable('mail_outbox')
      .set({ state: 'failed', attempts: 1, last_error_code: 550, last_error: '5.1.1 User unknown' })
      .where('email_id', '=', id)
      .execute();
    expect((await get(`/api/email/${id}`, pro)).json().delivery).toMatchObject({
      state: 'failed',
      attempts: 1,
      error: '550 5.1.1 User unknown',
    });
  });

  it('rejects a malformed cursor with 400', async () => {
    const res = await get('/api/email?cursor=not-a-cursor', pro);
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('invalid_cursor');
  });
});
