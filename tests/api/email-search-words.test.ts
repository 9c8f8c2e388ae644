import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDb, createPool } from '../../src/server/db/database.ts';
import { migrateTo, migrateToLatest } from '../../src/server/db/migrate.ts';
import { searchWords } from '../../src/server/db/search-words.ts';
import { insertEmail, listEmails } from '../../src/server/features/email/email.repo.ts';
import { createTestDatabase } from '../support/test-db.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * History search's HTML index is on the HTML's words (src/server/db/search-words.ts, migration
 * 0023): the words narrow, the HTML decides. Whether a send wrote the words or the trigger did,
 * a search finds what the HTML contains and nothing else.
 */
describe('history search through the HTML’s words', () => {
  let ctx: TestContext;
  let alice: TestUser;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { FREE_SENDS_PER_MINUTE: '100', FREE_MONTHLY_LIMIT: '100' } });
    alice = await createUser(ctx.db);
  });
  afterAll(async () => ctx?.close());

  const search = async (u: TestUser, q: string) => {
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/email?limit=100&q=${encodeURIComponent(q)}`,
      headers: u.headers,
    });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json().items as { id: string }[]).map((i) => i.id).sort();
  };
  /** Two emails of this HTML: one with the words a send makes, one with the trigger's. */
  const seedBoth = async (u: TestUser, html: string) => {
    const base = { userId: u.user.id, to: 'client@example.com', subject: 'S', html, inlineCss: false };
    const sent = await insertEmail(ctx.db, {
      ...base,
      searchWords: searchWords(html),
      createdAt: new Date(),
    });
    const triggered = await insertEmail(ctx.db, { ...base, createdAt: new Date() });
    return [sent.id, triggered.id].sort();
  };

  it('stores the words of the HTML as sent, made by the transform process', async () => {
    const res = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: alice.headers,
      payload: {
        to: 'client@example.com',
        subject: 'Words',
        html: '<style>p { color: red }</style><p>Spring — «collection»</p>',
        inlineCss: true,
      },
    });
    expect(res.statusCode, res.body).toBe(200);
    const row = await ctx.db
      .selectFrom('emails')
      .select(['html', 'search_words'])
      .where('id', '=', res.json().id)
      .executeTakeFirstOrThrow();
    // The words of the HTML as sent: its inlined style attribute's, not the em dash or guillemets.
    expect(row.html).toBe('<p style="color: red;">Spring — «collection»</p>');
    expect(row.search_words).toBe('p style color red Spring collection');
  });

  it('finds across tags, punctuation and case, in attributes, and nothing the HTML does not contain', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const html =
      '<p class="lead">Spring — «Collection» naïve-café</p><a href="https://shop.example.com/items/42?utm=news">ΣΟΦΙΑ</a>';
    const both = await seedBoth(u, html);
    for (const q of [
      'ring — «coll',
      'SPRING',
      'naïve-café',
      'ÏVE-CA',
      'shop.example.com/items/42',
      'class="lead"',
      '42?utm=n',
      'σοφια',
      '«',
      'p',
    ]) {
      expect(await search(u, q), q).toEqual(both);
    }
    // Every word is in the index, but not in this order: the HTML decides.
    expect(await search(u, 'collection spring')).toEqual([]);
    expect(await search(u, 'café naïve')).toEqual([]);
    expect(await search(u, 'springs')).toEqual([]);
  });

  it('finds every stretch of the HTML it contains, whoever wrote the words (generated)', async () => {
    const u = await createUser(ctx.db, { plan: 'pro' });
    const chars = [...'aZ9éÉüΣσмИ中\u0301 <>/="-.,:«»—…😀'];
    const html = fc.array(fc.constantFrom(...chars), { minLength: 1, maxLength: 40 });
    await fc.assert(
      fc.asyncProperty(
        html.chain((h) =>
          fc.tuple(fc.constant(h), fc.nat(h.length - 1), fc.integer({ min: 1, max: 12 }), fc.boolean()),
        ),
        async ([h, start, length, upper]) => {
          await sql`update emails set deleted_at = now() where user_id = ${u.user.id}`.execute(ctx.db);
          const both = await seedBoth(u, `<p>${h.join('')}</p>`);
          const stretch = h.slice(start, start + length);
          // Cased one code point at a time, as PostgreSQL's simple case mapping folds.
          const q = stretch.map((c) => (upper ? c.toUpperCase() : c.toLowerCase())).join('');
          if ([...q].length !== stretch.length || q.trim() === '') return;
          expect(await search(u, q), `${h.join('')} / ${q}`).toEqual(both);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('keeps the trigram index on the words, not on the HTML', async () => {
    const { rows } = await sql<{ indexname: string; indexdef: string }>`
      select indexname, indexdef from pg_indexes
       where tablename = 'emails' and indexdef like '%gin_trgm_ops%' order by indexname`.execute(ctx.db);
    expect(rows.map((r) => r.indexname)).toEqual([
      'emails_subject_trgm',
      'emails_to_trgm',
      'emails_words_trgm',
    ]);
    expect(rows.find((r) => r.indexname === 'emails_words_trgm')?.indexdef).toContain(
      '(search_words gin_trgm_ops)',
    );
  });
});

describe('migration 0023 gives the emails already there their words', () => {
  it('fills them, searches them, and goes back down to the HTML index', async () => {
    const database = await createTestDatabase({ empty: true });
    const db = createDb(createPool(database.url, 2));
    try {
      await migrateTo(db, '0022-share-expiry-length');
      const user = await sql<{ id: string }>`
        insert into users (email, password_hash, verified_at) values ('old@example.com', 'x', now())
        returning id`.execute(db);
      const userId = user.rows[0]!.id;
      await sql`insert into emails (user_id, to_addresses, subject, html)
                values (${userId}, 'a@example.com', 'Old', '<p>Spring—collection, ÉTÉ</p>')`.execute(db);
      await migrateToLatest(db);
      const row = await db.selectFrom('emails').select('search_words').executeTakeFirstOrThrow();
      // Split at ASCII only: the em dash stays inside a word, coarser than a send's words.
      expect(row.search_words.split(' ').sort()).toEqual(['Spring—collection', 'p', 'ÉTÉ']);
      for (const q of ['collection', 'été', 'spring—coll']) {
        expect(
          (await listEmails(db, userId, { limit: 10, q })).map((e) => e.subject),
          q,
        ).toEqual(['Old']);
      }
      expect(await listEmails(db, userId, { limit: 10, q: 'collection spring' })).toEqual([]);

      await migrateTo(db, '0022-share-expiry-length');
      const { rows } = await sql<{ indexname: string }>`
        select indexname from pg_indexes where tablename = 'emails' and indexname like 'emails_%_trgm'
         order by indexname`.execute(db);
      expect(rows.map((r) => r.indexname)).toEqual([
        'emails_html_trgm',
        'emails_subject_trgm',
        'emails_to_trgm',
      ]);
    } finally {
      await db.destroy();
      await database.drop();
    }
  });
});
