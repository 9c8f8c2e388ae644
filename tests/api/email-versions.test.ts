import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

interface Summary {
  versionCount: number;
  id: string;
  threadId: string;
  version: number;
  subject: string;
  matched: { id: string; version: number } | null;
}

describe('versions of an email: resend with parentId, the thread in the detail and the history, deleting', () => {
  let ctx: TestContext;
  let pro: TestUser;
  let other: TestUser;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: { FREE_SENDS_PER_MINUTE: '1000', PRO_SENDS_PER_MINUTE: '1000' },
    });
    pro = await createUser(ctx.db, { plan: 'pro' });
    other = await createUser(ctx.db, { plan: 'pro' });
  });
  afterAll(async () => ctx?.close());

  const send = (u: TestUser | undefined, body: Record<string, unknown>) =>
    ctx.app.inject({ method: 'POST', url: '/api/email/send', headers: u?.headers, payload: body });
  const get = (url: string, u?: TestUser) => ctx.app.inject({ method: 'GET', url, headers: u?.headers });
  const del = (url: string, u?: TestUser) => ctx.app.inject({ method: 'DELETE', url, headers: u?.headers });
  const sent = async (u: TestUser, body: Record<string, unknown>) => {
    // Each send a second after the last, so "newest first" has one answer.
    ctx.clock.advance(1000);
    const res = await send(u, { to: 'client@example.com', ...body });
    expect(res.statusCode, res.body).toBe(200);
    return res.json().id as string;
  };
  const history = async (u: TestUser, q = '') =>
    (await get(`/api/email?limit=20${q ? `&q=${encodeURIComponent(q)}` : ''}`, u)).json().items as Summary[];
  const ledgerCount = async (userId: string) =>
    Number(
      (
        await ctx.db
          .selectFrom('usage_ledger')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('user_id', '=', userId)
          .executeTakeFirstOrThrow()
      ).n,
    );

  /** A thread of three versions: v1 has a word no later version has. */
  async function threeVersions(u: TestUser) {
    const v1 = await sent(u, { subject: 'Spring sale', html: '<p>Hello tangerine</p>' });
    const v2 = await sent(u, { subject: 'Spring sale', html: '<p>Hello orange</p>', parentId: v1 });
    // Any version may be the parent: the new one is still the thread's next.
    const v3 = await sent(u, { subject: 'Spring sale, final', html: '<p>Hello lemon</p>', parentId: v1 });
    return { v1, v2, v3 };
  }

  it('makes a thread of 3 versions: each send with parentId is the next version of the same thread', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const { v1, v2, v3 } = await threeVersions(u);
    const detail = (await get(`/api/email/${v3}`, u)).json();
    expect(detail).toMatchObject({ id: v3, threadId: v1, version: 3, subject: 'Spring sale, final' });
    expect(detail.versions.map((v: { id: string; version: number }) => [v.id, v.version])).toEqual([
      [v3, 3],
      [v2, 2],
      [v1, 1],
    ]);
    expect(detail.versions[0]).toEqual({
      id: v3,
      version: 3,
      subject: 'Spring sale, final',
      createdAt: detail.createdAt,
    });
    const first = (await get(`/api/email/${v1}`, u)).json();
    expect(first).toMatchObject({ threadId: v1, version: 1, source: { html: '<p>Hello tangerine</p>' } });
    expect(first.versions).toHaveLength(3);
    // Each version is a send of its own: charged, delivered.
    expect(await ledgerCount(u.user.id)).toBe(3);
  });

  it('lists one history row per thread, its latest version, and counts threads when paging', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const lone = await sent(u, { subject: 'Alone', html: '<p>only one</p>' });
    const { v1, v3 } = await threeVersions(u);
    const rows = await history(u);
    expect(rows.map((r) => [r.id, r.threadId, r.version, r.versionCount])).toEqual([
      [v3, v1, 3, 3],
      [lone, lone, 1, 1],
    ]);
    expect(rows.every((r) => r.matched === null)).toBe(true);
    // A page of one holds one thread; the cursor moves on to the next thread, not to v2.
    const page1 = (await get('/api/email?limit=1', u)).json();
    expect(page1.items.map((r: Summary) => r.id)).toEqual([v3]);
    const page2 = (await get(`/api/email?limit=1&cursor=${page1.nextCursor}`, u)).json();
    expect(page2.items.map((r: Summary) => r.id)).toEqual([lone]);
    expect(page2.nextCursor).toBeNull();
  });

  it('finds a word only an older version has, and shows the thread with the version that matched', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const { v1, v3 } = await threeVersions(u);
    expect(await history(u, 'TANGERINE')).toEqual([
      expect.objectContaining({ id: v3, version: 3, matched: { id: v1, version: 1 } }),
    ]);
    // A match in the latest version needs no pointer.
    expect(await history(u, 'lemon')).toEqual([expect.objectContaining({ id: v3, matched: null })]);
    // The word of every version: still one row.
    expect((await history(u, 'hello')).map((r) => r.id)).toEqual([v3]);
    expect(await history(u, 'no-such-word-anywhere')).toEqual([]);
  });

  it('deletes one version: the thread stays, the previous version becomes the latest', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const { v1, v2, v3 } = await threeVersions(u);
    expect((await del(`/api/email/${v3}`, u)).statusCode).toBe(200);
    expect((await get(`/api/email/${v3}`, u)).statusCode).toBe(404);
    expect((await history(u)).map((r) => [r.id, r.version, r.versionCount])).toEqual([[v2, 2, 2]]);
    const detail = (await get(`/api/email/${v1}`, u)).json();
    expect(detail.versions.map((v: { id: string }) => v.id)).toEqual([v2, v1]);
    // A deleted version's word no longer finds the thread.
    expect(await history(u, 'lemon')).toEqual([]);
    // A deleted version's number is not reused while its row exists; the next resend is v4.
    const v4 = await sent(u, { html: '<p>v4</p>', parentId: v1 });
    expect((await get(`/api/email/${v4}`, u)).json()).toMatchObject({ threadId: v1, version: 4 });
  });

  it("never gives a purged version's number again, and forgets a thread once none of it is left", async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const { v1, v2, v3 } = await threeVersions(u);
    // Purged, as the housekeeping job purges a deleted version once its deliveries settled.
    await ctx.db.deleteFrom('emails').where('id', 'in', [v2, v3]).execute();
    const v4 = await sent(u, { html: '<p>v4</p>', parentId: v1 });
    expect((await get(`/api/email/${v4}`, u)).json()).toMatchObject({ threadId: v1, version: 4 });
    const numbers = () =>
      ctx.db.selectFrom('email_thread_numbers').select('last_version').where('thread_id', '=', v1).execute();
    expect(await numbers()).toEqual([{ last_version: 3 }]);
    await ctx.db.deleteFrom('emails').where('thread_id', '=', v1).execute();
    expect(await numbers()).toEqual([]);
  });

  it('deleting the first version keeps the thread (its id lives on as threadId)', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const { v1, v2, v3 } = await threeVersions(u);
    expect((await del(`/api/email/${v1}`, u)).statusCode).toBe(200);
    expect((await get(`/api/email/${v2}`, u)).json()).toMatchObject({ threadId: v1, version: 2 });
    const v4 = await sent(u, { html: '<p>v4</p>', parentId: v2 });
    expect((await get(`/api/email/${v4}`, u)).json()).toMatchObject({ threadId: v1, version: 4 });
    expect((await history(u)).map((r) => r.id)).toEqual([v4]);
    expect((await get(`/api/email/${v3}`, u)).json().versions).toHaveLength(3);
  });

  it('deletes all versions with DELETE /api/email/{id}/versions, answering how many', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const keep = await sent(u, { subject: 'Another email', html: '<p>keep</p>' });
    const { v1, v2, v3 } = await threeVersions(u);
    const res = await del(`/api/email/${v2}/versions`, u);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true, deleted: 3 });
    for (const id of [v1, v2, v3]) expect((await get(`/api/email/${id}`, u)).statusCode).toBe(404);
    expect((await history(u)).map((r) => r.id)).toEqual([keep]);
    // Deleted rows are hidden or gone: a resend to the deleted thread is a 404, uncharged.
    const before = await ledgerCount(u.user.id);
    expect((await send(u, { to: 'a@example.com', html: '<p>x</p>', parentId: v3 })).statusCode).toBe(404);
    expect(await ledgerCount(u.user.id)).toBe(before);
    // Again: nothing left to delete.
    expect((await del(`/api/email/${v2}/versions`, u)).statusCode).toBe(404);
  });

  it('deleting the last remaining version deletes the thread', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const v1 = await sent(u, { html: '<p>one</p>' });
    const v2 = await sent(u, { html: '<p>two</p>', parentId: v1 });
    expect((await del(`/api/email/${v1}`, u)).statusCode).toBe(200);
    expect((await del(`/api/email/${v2}`, u)).statusCode).toBe(200);
    expect(await history(u)).toEqual([]);
    expect((await del(`/api/email/${v2}/versions`, u)).statusCode).toBe(404);
  });

  it('keeps versions with deliveries under way hidden until they settle, like a single delete', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const v1 = await sent(u, { html: '<p>one</p>' });
    const v2 = await sent(u, { html: '<p>two</p>', parentId: v1 });
    // v2's delivery is still queued (no worker runs here); v1's has settled.
    await ctx.db.updateTable('mail_outbox').set({ state: 'sent' }).where('email_id', '=', v1).execute();
    await ctx.db.updateTable('mail_outbox').set({ state: 'queued' }).where('email_id', '=', v2).execute();
    expect((await del(`/api/email/${v1}/versions`, u)).json()).toEqual({ ok: true, deleted: 2 });
    const rows = await ctx.db
      .selectFrom('emails')
      .select(['id', 'deleted_at'])
      .where('thread_id', '=', v1)
      .execute();
    expect(rows).toEqual([{ id: v2, deleted_at: expect.any(Date) }]);
  });

  it('answers 400 naming parentId when it is not an email id, before anything is charged', async () => {
    const before = await ledgerCount(pro.user.id);
    for (const parentId of ['nope', '12345', `${randomUUID()}x`, '']) {
      const res = await send(pro, { to: 'a@example.com', html: '<p>x</p>', parentId });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        error: 'parentId: must be the id of an email you sent (a UUID)',
        code: 'invalid_request',
      });
    }
    const wrongType = await send(pro, { to: 'a@example.com', html: '<p>x</p>', parentId: 42 });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().error).toMatch(/^parentId: /);
    expect(await ledgerCount(pro.user.id)).toBe(before);
  });

  it('keeps parentId out of the preview, which makes no version', async () => {
    const v1 = await sent(pro, { html: '<p>x</p>' });
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/preview',
      headers: pro.headers,
      payload: { html: '<p>x</p>', parentId: v1 },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatch(/parentId/);
  });

  it('answers 404 for an unknown parent and for another user’s email, and changes nothing', async () => {
    const theirs = await sent(other, { html: '<p>theirs</p>' });
    const before = await ledgerCount(pro.user.id);
    for (const parentId of [randomUUID(), theirs]) {
      const res = await send(pro, { to: 'a@example.com', html: '<p>x</p>', parentId });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({ error: 'Email not found', code: 'not_found' });
    }
    expect(await ledgerCount(pro.user.id)).toBe(before);
    // Another user's email cannot be read, listed as a version, or deleted.
    expect((await get(`/api/email/${theirs}`, pro)).statusCode).toBe(404);
    expect((await del(`/api/email/${theirs}/versions`, pro)).statusCode).toBe(404);
    expect((await del(`/api/email/${theirs}`, pro)).statusCode).toBe(404);
    expect((await get(`/api/email/${theirs}`, other)).json().versions).toHaveLength(1);
    // Not an id: the same 404 as any missing email.
    expect((await del('/api/email/not-an-id/versions', pro)).statusCode).toBe(404);
  });

  it('asks for a session (401) before anything else', async () => {
    const v1 = await sent(pro, { html: '<p>x</p>' });
    expect((await send(undefined, { to: 'a@example.com', html: '<p>x</p>', parentId: v1 })).statusCode).toBe(
      401,
    );
    expect((await send(undefined, { parentId: 'nope' })).statusCode).toBe(401);
    expect((await del(`/api/email/${v1}/versions`)).statusCode).toBe(401);
    expect((await get(`/api/email/${v1}`)).statusCode).toBe(401);
  });

  it('settles parallel resends of one thread into distinct versions, never a 5xx', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const v1 = await sent(u, { html: '<p>one</p>' });
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        send(u, { to: 'a@example.com', html: `<p>${i}</p>`, parentId: v1 }),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
    const versions = await ctx.db
      .selectFrom('emails')
      .select('version')
      .where('thread_id', '=', v1)
      .orderBy('version')
      .execute();
    expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('a race the database reports is retried: the statement reads the new maximum', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const v1 = await sent(u, { html: '<p>one</p>' });
    // Hold the thread's next number in an open transaction: the send's insert waits for it, then
    // meets the unique index, and its retry takes the number after.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inserted!: () => void;
    const ready = new Promise<void>((resolve) => (inserted = resolve));
    const holder = ctx.db.transaction().execute(async (trx) => {
      await sql`insert into emails (user_id, to_addresses, subject, html, inline_css, created_at, thread_id, version)
                values (${u.user.id}, 'x@example.com', 'held', '<p>held</p>', false, now(), ${v1}, 2)`.execute(
        trx,
      );
      inserted();
      await held;
    });
    await ready;
    const pending = send(u, { to: 'a@example.com', html: '<p>racing</p>', parentId: v1 });
    await new Promise((r) => setTimeout(r, 300));
    release();
    await holder;
    const res = await pending;
    expect(res.statusCode, res.body).toBe(200);
    expect((await get(`/api/email/${res.json().id}`, u)).json().version).toBe(3);
  });
});
