import { createUser } from '../../tests/support/users.ts';
import { startChildServer } from '../support/child-server.ts';
import { fromRuns, type BenchContext, type MetricResults } from '../support/metric.ts';
import { hammer } from '../support/load.ts';

/**
 * API overhead: authenticated GET /api/auth/me (session lookup, cached per process after the first
 * request as in production (src/server/main.ts), security headers,
 * schema-checked response) against an empty Fastify app answering {"hello":"world"}. Each server
 * runs in its own process; autocannon (10 connections) in this one. Five rounds of 5 s after a
 * warm-up, each the two back to back, alternating which goes first; medians, and the ratio is the
 * median of the per-round ratios (with their spread). On a shared 2-core machine one round's
 * ratio moves by ±0.15, so three rounds were not enough to tell a change from noise.
 */
const ROUNDS = 5;
export default async function api(ctx: BenchContext): Promise<MetricResults> {
  const pg = await ctx.postgres();
  const database = await pg.createDatabase();
  const app = await startChildServer('app', { DATABASE_URL: database.url, DATABASE_POOL_SIZE: '10' });
  const hello = await startChildServer('hello');
  try {
    const { headers } = await createUser(database.db);
    const meUrl = `${app.url}/api/auth/me`;
    await hammer({ url: meUrl, headers, seconds: 2 }); // warm-up: JIT, connection pool
    await hammer({ url: hello.url, seconds: 2 });
    const me: number[] = [];
    const bare: number[] = [];
    const ratios: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Back to back, alternating which goes first, so a change in load hits both sides alike.
      let a: Awaited<ReturnType<typeof hammer>>;
      let b: Awaited<ReturnType<typeof hammer>>;
      if (round % 2 === 0) {
        a = await hammer({ url: meUrl, headers });
        b = await hammer({ url: hello.url });
      } else {
        b = await hammer({ url: hello.url });
        a = await hammer({ url: meUrl, headers });
      }
      if (a.errors || a.non2xx) throw new Error(`/api/auth/me: ${a.errors} errors, ${a.non2xx} non-2xx`);
      me.push(a.perSecond);
      bare.push(b.perSecond);
      ratios.push(a.perSecond / b.perSecond);
      ctx.log(
        `round ${round + 1}: /api/auth/me ${a.perSecond.toFixed(0)}/s (p99 ${a.p99} ms), hello ${b.perSecond.toFixed(0)}/s`,
      );
    }
    return {
      api_me_per_s: fromRuns(me, 'req/s'),
      fastify_hello_per_s: fromRuns(bare, 'req/s'),
      api_vs_hello: fromRuns(ratios, 'ratio', 2),
    };
  } finally {
    await app.stop();
    await hello.stop();
    await database.drop();
  }
}
