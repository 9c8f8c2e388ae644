import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fromRuns, type BenchContext, type MetricResults } from '../support/metric.ts';
import { hammer } from '../support/load.ts';
import { commandOf, descendants, rssMb } from '../support/process-tree.ts';
import { freePort } from '../../tests/support/free-port.ts';
import { poll } from '../../tests/support/poll.ts';

/**
 * `npm start` as a user runs it, on its embedded defaults in a fresh DATA_DIR:
 * - cold_start_ms: from spawning `npm start` to the first 200 from /api/health, on an existing
 *   data dir (the first start, which creates the cluster, is not counted); median of 3, with their spread.
 * - rss_idle_mb: resident memory of the app's node process 5 s after it is healthy.
 * - rss_under_load_mb: its peak while autocannon drives /api/config and /api/health for 10 s.
 */
const root = path.resolve(import.meta.dirname, '../..');

async function waitHealthy(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  await poll(
    async () => {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      const res = await fetch(url).catch(() => undefined); // not listening yet
      return res?.status === 200;
    },
    { timeoutMs, intervalMs: 20, what: `${url} to answer 200` },
  );
}

function appPid(npmPid: number): number {
  // The node process itself, not the `sh -c` npm runs the script through.
  const pid = descendants(npmPid).find((p) => {
    const cmd = commandOf(p);
    return /(^|\/)node (dist\/server\/main\.js|.*src\/server\/main\.ts)/.test(cmd);
  });
  if (!pid) throw new Error('could not find the app process under npm start');
  return pid;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  // Like Ctrl-C in a terminal: the signal goes to the whole process group.
  process.kill(-child.pid!, 'SIGINT');
  await exited;
}

export default async function startup(ctx: BenchContext): Promise<MetricResults> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'proofmail-bench-start-'));
  await fs.chmod(dataDir, 0o755);
  const port = await freePort();
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn' };
  const health = `http://127.0.0.1:${port}/api/health`;
  const start = () =>
    spawn('npm', ['start', '--silent'], { cwd: root, env, stdio: 'ignore', detached: true });
  try {
    const first = start(); // creates the cluster (and builds the web app if needed)
    await waitHealthy(health, first, 180_000);
    await stop(first);

    const times: number[] = [];
    let idle = 0;
    let peak = 0;
    for (let i = 0; i < 3; i++) {
      const t = performance.now();
      const child = start();
      try {
        await waitHealthy(health, child, 60_000);
        times.push(performance.now() - t);
        if (i === 2) {
          const pid = appPid(child.pid!);
          await new Promise((r) => setTimeout(r, 5_000));
          idle = rssMb(pid);
          const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 100);
          await Promise.all([
            hammer({ url: `http://127.0.0.1:${port}/api/config`, seconds: 10, connections: 20 }),
            hammer({ url: health, seconds: 10, connections: 10 }),
          ]);
          clearInterval(sampler);
        }
      } finally {
        await stop(child);
      }
    }
    ctx.log(`starts: ${times.map((t) => t.toFixed(0)).join(', ')} ms`);
    return {
      cold_start_ms: fromRuns(times, 'ms'),
      rss_idle_mb: { value: Math.round(idle), unit: 'MiB' },
      rss_under_load_mb: { value: Math.round(peak), unit: 'MiB' },
    };
  } finally {
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}
