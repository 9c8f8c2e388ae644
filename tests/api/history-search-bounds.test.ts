import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { SEARCH_TOO_SLOW } from '../../src/server/features/email/email.service.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * A history search is bounded (docs/decisions/0126-history-search-bounded.md): crafted HTML can
 * make matching one row take a good part of a second, so PostgreSQL stops a search at its budget
 * and the answer names the problem; a cursor names only times a row can have.
 */
describe('history search bounds', () => {
  let ctx: TestContext;
  let alice: TestUser;
  beforeAll(async () => {
    // A budget a plain search meets on a busy machine, and ten crafted emails (about 0.4 s each) do not.
    ctx = await createTestContext({ env: { SEARCH_BUDGET_MS: '1000' } });
    alice = await createUser(ctx.db, { plan: 'pro' });
  });
  afterAll(async () => ctx?.close());

  const list = (query: string, u = alice) =>
    ctx.app.inject({ method: 'GET', url: `/api/email?${query}`, headers: u.headers });

  it('stops a search past its budget with a 422 that says what to do, and answers the history meanwhile', async () => {
    // One long run of one letter: a pattern of that letter ending in another is tried at every position.
    const html = `<p>${'a'.repeat(1_000_000)}</p>`;
    for (let i = 0; i < 10; i++)
      await insertEmail(ctx.db, {
        userId: alice.user.id,
        to: 'client@example.com',
        subject: `Long ${i}`,
        html,
        inlineCss: false,
        createdAt: new Date(),
      });
    const slow = await list(`limit=20&q=${'a'.repeat(199)}b`);
    expect(slow.statusCode, slow.body).toBe(422);
    expect(slow.json()).toEqual({ error: SEARCH_TOO_SLOW, code: 'search_timeout' });
    const plain = await list('limit=20');
    expect(plain.statusCode).toBe(200);
    expect(plain.json().items).toHaveLength(10);
    const quick = await list('limit=20&q=Long%202');
    expect(quick.json().items.map((e: { subject: string }) => e.subject)).toEqual(['Long 2']);
  });

  it('refuses a cursor naming a time no row can have with 400, not a database error', async () => {
    const uuid = '00000000-0000-4000-8000-000000000000';
    for (const at of [
      '-271821-04-20T00:00:00.000Z',
      '-004714-11-23T00:00:00Z',
      '+275760-09-13T00:00:00.000Z',
    ]) {
      const cursor = Buffer.from(`${at}|${uuid}`).toString('base64url');
      const res = await list(`limit=2&cursor=${cursor}`);
      expect(res.statusCode, at).toBe(400);
      expect(res.json()).toEqual({ error: 'Invalid cursor', code: 'invalid_cursor' });
    }
  });
});
