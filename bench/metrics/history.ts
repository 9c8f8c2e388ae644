import { sql } from 'kysely';
import { buildApp } from '../../src/server/app.ts';
import { loadConfig } from '../../src/server/config.ts';
import { historyQuery, likePattern } from '../../src/server/features/email/email.repo.ts';
import { createUser } from '../../tests/support/users.ts';
import { fromRuns, percentileOfRounds, type BenchContext, type MetricResults } from '../support/metric.ts';
import { percentile } from '../support/load.ts';

/**
 * History at scale: 100,000 emails of one Pro user (about 6 KB of HTML each, 600 MB in all),
 * then p95 latency of GET /api/email (through the real app: session, query, serialisation) for
 * the first page, a page 5,000 rows deep, and a search for a rare word found only in the HTML of
 * five emails, and for a word in a fifth of the subjects. The same rare search run as bare SQL (no app) gives the ratio's floor.
 * Each figure is the median of three rounds of 100 requests (after 5 to warm up), with their spread.
 */
const EMAILS = 100_000;
const RARE = 'zanzibarflamingo';
const RUNS = 100;
const ROUNDS = 3;

export default async function history(ctx: BenchContext): Promise<MetricResults> {
  const pg = await ctx.postgres();
  const database = await pg.createDatabase();
  const { db } = database;
  const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' });
  const app = await buildApp({ config, db });
  await app.ready();
  // The app answers only PUBLIC_URL's host (src/server/http/host-allowlist.ts).
  const host = new URL(config.publicUrl).host;
  try {
    const user = await createUser(db, { plan: 'pro' });
    const started = Date.now();
    // Bulk load without the trigram indexes, then build them once (as a restore would); the
    // trigger of migration 0023 gives each row its words.
    await sql`drop index if exists emails_to_trgm, emails_subject_trgm, emails_words_trgm`.execute(db);
    await sql`
      insert into emails (user_id, to_addresses, subject, html, created_at)
      select ${user.user.id}::uuid,
             'client' || (i % 500) || '@example' || (i % 37) || '.com, boss' || (i % 11) || '@example.org',
             'Campaign ' || (i % 900) || ': ' || (array['Spring sale','Weekly digest','Order confirmation','Welcome aboard','Product update'])[1 + i % 5],
             '<!doctype html><html><body style="margin:0;background:#f3f4f6"><table width="600" cellpadding="0" cellspacing="0">' ||
             '<tr><td style="padding:24px;font-family:Arial"><h1 style="color:#111827">Hello ' || md5(i::text) || '</h1>' ||
             repeat('<p style="font-size:14px;line-height:21px;color:#4b5563">Every piece is checked twice before it leaves the workshop, and every order includes a care guide. Item ' || (i % 1000) || ' ships free this week.</p>', 24) ||
             '<a href="https://shop.example.com/items/' || i || '?utm_source=newsletter" style="background:#4f46e5;color:#fff">Shop now</a>' ||
             case when i % 20000 = 7 then '<p>' || ${RARE} || '</p>' else '' end ||
             '</td></tr></table></body></html>',
             now() - (i || ' seconds')::interval
      from generate_series(1, ${EMAILS}) as i`.execute(db);
    ctx.log(`seeded ${EMAILS} emails in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const indexed = Date.now();
    await db.connection().execute(async (c) => {
      await sql`set maintenance_work_mem = '512MB'`.execute(c);
      await sql`create index emails_to_trgm on emails using gin (to_addresses gin_trgm_ops)`.execute(c);
      await sql`create index emails_subject_trgm on emails using gin (subject gin_trgm_ops)`.execute(c);
      await sql`create index emails_words_trgm on emails using gin (search_words gin_trgm_ops)`.execute(c);
      await sql`analyze emails`.execute(c);
    });
    const size = await sql<{
      s: string;
    }>`select pg_size_pretty(pg_total_relation_size('emails')) as s`.execute(db);
    ctx.log(
      `indexed in ${((Date.now() - indexed) / 1000).toFixed(0)} s; emails table with indexes: ${size.rows[0]?.s}`,
    );

    /** Each round's request times. */
    const timeApi = async (url: string, check: (body: { items: unknown[] }) => void) => {
      const rounds: number[][] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const times: number[] = [];
        for (let i = 0; i < RUNS + 5; i++) {
          const t = performance.now();
          const res = await app.inject({ method: 'GET', url, headers: { ...user.headers, host } });
          const ms = performance.now() - t;
          if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
          check(res.json());
          if (i >= 5) times.push(ms);
        }
        rounds.push(times);
      }
      return rounds;
    };

    const first = await timeApi('/api/email?limit=20', (b) => {
      if (b.items.length !== 20) throw new Error('first page is not 20 rows');
    });
    // A cursor 5,000 rows in: walk there once, then time that page.
    let cursor: string | null = null;
    for (let i = 0; i < 250; i++) {
      const page: { json: () => { nextCursor: string | null } } = await app.inject({
        method: 'GET',
        url: `/api/email?limit=20${cursor ? `&cursor=${cursor}` : ''}`,
        headers: { ...user.headers, host },
      });
      cursor = page.json().nextCursor;
    }
    const deep = await timeApi(`/api/email?limit=20&cursor=${cursor}`, (b) => {
      if (b.items.length !== 20) throw new Error('deep page is not 20 rows');
    });
    const search = await timeApi(`/api/email?limit=20&q=${RARE}`, (b) => {
      if (b.items.length !== 5) throw new Error(`search found ${b.items.length} emails, expected 5`);
    });
    // A word in a fifth of the subjects: the first page fills from the newest rows.
    const common = await timeApi(`/api/email?limit=20&q=${encodeURIComponent('weekly digest')}`, (b) => {
      if (b.items.length !== 20) throw new Error(`common search found ${b.items.length} emails, expected 20`);
    });

    // The same search as bare SQL: the floor any API could reach.
    const pattern = likePattern(RARE);
    const bare: number[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const times: number[] = [];
      for (let i = 0; i < RUNS + 5; i++) {
        const t = performance.now();
        await sql`
          select e.id, e.to_addresses, e.subject, e.created_at, s.slug
          from emails e left join email_shares s on s.thread_id = e.thread_id
          where e.user_id = ${user.user.id}
            and (e.to_addresses ilike ${pattern} or e.subject ilike ${pattern}
                 or (e.search_words ilike ${pattern} and e.html ilike ${pattern}))
          order by e.created_at desc, e.id desc limit 21`.execute(db);
        if (i >= 5) times.push(performance.now() - t);
      }
      bare.push(times);
    }
    const plan = await sql<{ 'QUERY PLAN': string }>`explain select id from emails
      where user_id = ${user.user.id} and (to_addresses ilike ${pattern} or subject ilike ${pattern}
        or (search_words ilike ${pattern} and html ilike ${pattern}))
      order by created_at desc, id desc limit 21`.execute(db);
    ctx.log(
      `search plan: ${plan.rows
        .map((r) => r['QUERY PLAN'].trim())
        .slice(0, 3)
        .join(' | ')}`,
    );
    // The API's own query (one row per thread, docs/decisions/0079-history-one-row-per-thread.md):
    // its plan's top lines for the first page, a rare word and a common one.
    for (const q of [undefined, RARE, 'weekly digest']) {
      const compiled = historyQuery(db, user.user.id, { limit: 21, q }).compile();
      const explained = await db.executeQuery<{ 'QUERY PLAN': string }>({
        ...compiled,
        sql: `explain analyze ${compiled.sql}`,
      });
      ctx.log(
        `history plan (${q ?? 'first page'}): ${explained.rows
          .map((r) => r['QUERY PLAN'].trim())
          .filter((line) => /Scan|Join|Execution/.test(line))
          .slice(0, 6)
          .join(' | ')}`,
      );
    }
    return {
      history_first_page_p95_ms: percentileOfRounds(first, 95, 'ms', 2),
      history_deep_page_p95_ms: percentileOfRounds(deep, 95, 'ms', 2),
      history_search_p95_ms: percentileOfRounds(search, 95, 'ms', 2),
      history_search_common_p95_ms: percentileOfRounds(common, 95, 'ms', 2),
      history_search_sql_p95_ms: percentileOfRounds(bare, 95, 'ms', 2),
      // The API's rounds against the bare SQL's, in the order they ran.
      history_search_vs_sql: fromRuns(
        search.map((times, i) => percentile(times, 95) / percentile(bare[i]!, 95)),
        'ratio',
        2,
      ),
    };
  } finally {
    await app.close();
    await database.drop();
  }
}
