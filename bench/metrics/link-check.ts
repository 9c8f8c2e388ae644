import { startLoopbackServer } from '../../tests/support/loopback-http.ts';
import { checkLinksLive } from '../../src/server/checks/live-links.ts';
import { createEgress } from '../../src/server/net/egress.ts';
import { percentile } from '../support/load.ts';
import { inRounds, percentileOfRounds, type BenchContext, type MetricResults } from '../support/metric.ts';

/**
 * link_check_100_p95_ms: the live link check (src/server/checks/live-links.ts) of an email with 100
 * distinct links, all on a loopback HTTP server, through the egress guard with its test-only
 * loopback allowance (src/server/net/egress.ts). Each link costs a DNS lookup (an injected table),
 * the address checks, a connection and a HEAD. Three rounds of 30 runs after 3 to warm up, the median
 * round's p95 with their spread; each run is another user, so the per-user rate never stops it.
 * Target ≤ 5000 ms.
 */
const WARM_UP = 3;
const ROUNDS = 3;
const RUNS = 30;

export default async function linkCheck(ctx: BenchContext): Promise<MetricResults> {
  const server = await startLoopbackServer((_req, res) => void res.end('ok'));
  try {
    const egress = createEgress({
      allowLoopback: true,
      resolver: async () => [{ address: '127.0.0.1', family: 4 }],
    });
    const links = Array.from({ length: 100 }, (_, i) => ({
      url: `http://site${i}.test:${server.port}/page/${i}`,
    }));
    const times: number[] = [];
    for (let run = 0; run < WARM_UP + ROUNDS * RUNS; run++) {
      const started = performance.now();
      const findings = await checkLinksLive(links, { egress, userId: `bench-${run}` });
      const elapsed = performance.now() - started;
      if (findings.length !== 1 || findings[0]!.message !== 'All 100 links work.') {
        throw new Error(`unexpected findings: ${JSON.stringify(findings.slice(0, 3))}`);
      }
      if (run >= WARM_UP) times.push(elapsed);
    }
    ctx.log(
      `100 links: p50 ${percentile(times, 50).toFixed(1)} ms, p95 ${percentile(times, 95).toFixed(1)} ms, ` +
        `${server.requests.length} requests served`,
    );
    const rounds = inRounds(times, ROUNDS);
    return { link_check_100_p95_ms: percentileOfRounds(rounds, 95) };
  } finally {
    await server.close();
  }
}
