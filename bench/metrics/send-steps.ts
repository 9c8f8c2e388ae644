import { Kysely, PostgresDialect } from 'kysely';
import { startSessionCache } from '../../src/server/accounts/session-cache.ts';
import { createSessionResolver } from '../../src/server/accounts/sessions.ts';
import { buildApp } from '../../src/server/app.ts';
import { systemClock } from '../../src/server/clock.ts';
import { loadConfig } from '../../src/server/config.ts';
import { createPool } from '../../src/server/db/database.ts';
import type { Database } from '../../src/server/db/schema.ts';
import { createTransformPool, type TransformPool } from '../../src/server/prepare/transform-pool.ts';
import { poll } from '../../tests/support/poll.ts';
import { createUser } from '../../tests/support/users.ts';
import { percentile } from '../support/load.ts';
import {
  fromRuns,
  inRounds,
  percentileOfRounds,
  type BenchContext,
  type MetricResults,
} from '../support/metric.ts';

/**
 * Where the time of one `POST /api/email/send` goes (docs/scaling.md), step by step: the app in
 * this process (session cache on, as in main.ts) on the bench's embedded PostgreSQL, one send at a
 * time so the steps do not wait for each other, a ~25 KB newsletter-like HTML. Every statement's
 * time comes from kysely's query log, prepare's from the transform pool, the session lookup's from
 * the resolver, validation's from Fastify's hooks. Medians of 300 sends after 50 warm-up sends, each
 * step's the median of three rounds of 100 with their spread;
 * `send_steps_db_round_trips` is the number of statements a send runs (the session lookup
 * included only when the cache misses).
 */
const HTML = `<!doctype html><html><head><style>td{font-family:Arial}</style></head><body><table width="600">${'<tr><td style="padding:16px;color:#333">Spring collection: hand-finished, made to last, and shipped free this week only. Every piece is checked twice before it leaves the workshop.</td></tr>'.repeat(150)}</table></body></html>`;
const SENDS = 300;
const WARMUP = 50;

type Step = 'auth' | 'validation' | 'limits' | 'prepare' | 'store' | 'other_sql' | 'total';

export default async function sendSteps(ctx: BenchContext): Promise<MetricResults> {
  const pg = await ctx.postgres();
  const database = await pg.createDatabase();
  let current: Record<Step, number> & { statements: number } = blank();
  const db = new Kysely<Database>({
    dialect: new PostgresDialect({ pool: createPool(database.url, 10) }),
    log: (event) => {
      if (event.level !== 'query') return;
      current.statements += 1;
      const text = event.query.sql;
      const step: Step =
        /usage_counters|send_rate/.test(text) && !/insert into "emails"/.test(text)
          ? 'limits'
          : /"emails"|"mail_outbox"|"usage_ledger"|^begin|^commit|^rollback/i.test(text)
            ? 'store'
            : /"sessions"/.test(text)
              ? 'auth'
              : 'other_sql';
      current[step] += event.queryDurationMillis;
    },
  });
  const pool = createTransformPool({ processes: 2, budgetMs: 30_000 });
  const transforms: TransformPool = {
    async prepare(input, envelope) {
      const t = performance.now();
      try {
        return await pool.prepare(input, envelope);
      } finally {
        current.prepare += performance.now() - t;
      }
    },
    pixelDiff: (left, right) => pool.pixelDiff(left, right),
    close: () => pool.close(),
  };
  const config = loadConfig({
    DATABASE_URL: database.url,
    LOG_LEVEL: 'warn',
    PRO_MONTHLY_LIMIT: '10000000',
    PRO_SENDS_PER_MINUTE: '10000000',
  });
  const cache = startSessionCache({ connectionString: database.url });
  const resolver = createSessionResolver({ db, clock: systemClock, cache });
  const app = await buildApp({
    config,
    db,
    transforms,
    sessions: {
      async resolve(token) {
        const t = performance.now();
        try {
          return await resolver.resolve(token);
        } finally {
          current.auth += performance.now() - t;
        }
      },
      forgetUser: (id) => resolver.forgetUser(id),
    },
  });
  const marks = new WeakMap<object, number>();
  app.addHook('preValidation', async (request) => void marks.set(request, performance.now()));
  app.addHook('preHandler', async (request) => {
    current.validation += performance.now() - (marks.get(request) ?? performance.now());
  });
  await app.ready();
  try {
    await poll(() => cache.active, { what: 'the session listener' });
    const user = await createUser(db, { plan: 'pro' });
    const samples: (Record<Step, number> & { statements: number })[] = [];
    for (let i = 0; i < WARMUP + SENDS; i++) {
      current = blank();
      const t = performance.now();
      const res = await app.inject({
        method: 'POST',
        url: '/api/email/send',
        headers: { ...user.headers, host: new URL(config.publicUrl).host },
        payload: { to: 'client@example.com', subject: `Steps ${i}`, html: HTML },
      });
      current.total = performance.now() - t;
      if (res.statusCode !== 200) throw new Error(`send: ${res.statusCode} ${res.body}`);
      if (i >= WARMUP) samples.push(current);
    }
    const steps: Step[] = ['auth', 'validation', 'limits', 'prepare', 'store', 'other_sql', 'total'];
    const p50 = (step: Step) =>
      percentile(
        samples.map((s) => s[step]),
        50,
      );
    ctx.log(
      `HTML ${(HTML.length / 1024).toFixed(1)} KB; per send (p50, ms): ` +
        steps.map((s) => `${s} ${p50(s).toFixed(2)}`).join(', '),
    );
    const out: MetricResults = {};
    // Three rounds of consecutive sends: each step's median round, with their spread.
    const rounds = inRounds(samples);
    for (const step of steps)
      out[`send_step_${step}_ms`] = percentileOfRounds(
        rounds.map((round) => round.map((s) => s[step])),
        50,
        'ms',
        2,
      );
    out.send_steps_db_round_trips = fromRuns(
      samples.map((s) => s.statements),
      'statements',
    );
    return out;
  } finally {
    await app.close();
    await pool.close();
    await cache.close();
    await db.destroy();
    await database.drop();
  }
}

function blank(): Record<Step, number> & { statements: number } {
  return { auth: 0, validation: 0, limits: 0, prepare: 0, store: 0, other_sql: 0, total: 0, statements: 0 };
}
