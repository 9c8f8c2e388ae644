import fs from 'node:fs';
import os from 'node:os';
import { fromRuns, type BenchContext, type MetricResults } from '../support/metric.ts';
import { commandOf, descendants } from '../support/process-tree.ts';
import { SEND_HTML, startSendApp } from '../support/send-app.ts';

/**
 * Where the CPU of a send goes, process by process (docs/scaling.md §1): on two cores a send's
 * throughput is bound by the CPU all its processes take, so this is what `send_vs_raw` is made of.
 * The `send` bench's email (~12 KB HTML), 1,000 sends through the API with 8 connections (8 Pro
 * users) after 300 to warm up, each delivered to a loopback sink, then the raw side's 1,000 mails;
 * three rounds, each figure the median round with their spread; CPU time read from /proc:
 * - send_cpu_app_ms: the app's process (HTTP, sessions, limits, the store, the mail workers' claims
 *   and SMTP client), per send;
 * - send_cpu_transform_ms: its transform processes (prepare and the static checks);
 * - send_cpu_postgres_ms: every process of the bench's PostgreSQL;
 * - send_cpu_bench_ms: this process (the HTTP client and the sink);
 * - send_cpu_total_ms: their sum;
 * - send_cpu_bound_per_s: the sends per second the machine's cores allow at that CPU per send
 *   (cores × 1,000 / send_cpu_total_ms); `send_vs_raw` ≥ 0.4 needs it at 0.4 × the raw rate;
 * - raw_smtp_cpu_ms: this process per mail while nodemailer sends the same mails straight to the
 *   sink (the raw side of `send_vs_raw`, sink included). The raw side waits on round trips more
 *   than on CPU, so the two CPU figures are not the ratio.
 */
const SENDS = 1000;
const ROUNDS = 3;
const TICK_MS = 1000 / 100; // USER_HZ is 100 on Linux

/** utime + stime of a process, in clock ticks (0 once it has ended). */
function cpuTicks(pid: number): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

const isPostgres = (pid: number) => {
  try {
    return fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return false;
  }
};

/** CPU ticks of each process group so far. The bench's PostgreSQL is a child of this process. */
function sample(appPid: number): { app: number; transform: number; postgres: number; bench: number } {
  const transforms = descendants(appPid).filter((pid) => commandOf(pid).includes('transform-worker'));
  const postgres = descendants(process.pid).filter(isPostgres);
  const self = process.cpuUsage();
  return {
    app: cpuTicks(appPid),
    transform: transforms.reduce((sum, pid) => sum + cpuTicks(pid), 0),
    postgres: postgres.reduce((sum, pid) => sum + cpuTicks(pid), 0),
    bench: (self.user + self.system) / 1000 / TICK_MS,
  };
}

export default async function sendCpu(ctx: BenchContext): Promise<MetricResults> {
  const { sink, app, sendAll, sendRaw, stop } = await startSendApp(ctx);
  try {
    const sends = async (n: number, tag: string) => {
      sink.clear();
      await sendAll(n, (i) =>
        JSON.stringify({ to: 'client@example.com', subject: `CPU ${tag} ${i}`, html: SEND_HTML }),
      );
    };
    await sends(300, 'warm-up');

    const keys = ['app', 'transform', 'postgres', 'bench'] as const;
    const rounds: Record<(typeof keys)[number] | 'total' | 'raw', number[]> = {
      app: [],
      transform: [],
      postgres: [],
      bench: [],
      total: [],
      raw: [],
    };
    for (let round = 1; round <= ROUNDS; round++) {
      const before = sample(app.pid);
      const started = performance.now();
      await sends(SENDS, `measured ${round}`);
      const seconds = (performance.now() - started) / 1000;
      const after = sample(app.pid);
      let total = 0;
      for (const key of keys) {
        const perSend = ((after[key] - before[key]) * TICK_MS) / SENDS;
        rounds[key].push(perSend);
        total += perSend;
      }
      rounds.total.push(total);

      const rawBefore = process.cpuUsage();
      await sendRaw(SENDS, `cpu-${round}`);
      const rawUsage = process.cpuUsage(rawBefore);
      rounds.raw.push((rawUsage.user + rawUsage.system) / 1000 / SENDS);
      const split = keys.map((key) => `${key} ${rounds[key].at(-1)!.toFixed(2)}`).join(', ');
      ctx.log(
        `round ${round}: ${(SENDS / seconds).toFixed(0)} sends/s end to end; CPU ms per send: ${split}, ` +
          `total ${total.toFixed(2)}; raw ${rounds.raw.at(-1)!.toFixed(2)} ms per mail (nodemailer and the sink)`,
      );
    }
    return {
      send_cpu_app_ms: fromRuns(rounds.app, 'ms', 2),
      send_cpu_transform_ms: fromRuns(rounds.transform, 'ms', 2),
      send_cpu_postgres_ms: fromRuns(rounds.postgres, 'ms', 2),
      send_cpu_bench_ms: fromRuns(rounds.bench, 'ms', 2),
      send_cpu_total_ms: fromRuns(rounds.total, 'ms', 2),
      raw_smtp_cpu_ms: fromRuns(rounds.raw, 'ms', 2),
      send_cpu_bound_per_s: fromRuns(
        rounds.total.map((total) => (os.availableParallelism() * 1000) / total),
        'sends/s',
      ),
    };
  } finally {
    await stop();
  }
}
