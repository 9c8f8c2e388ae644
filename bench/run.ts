import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchContext, MachineLoad, MetricModule, MetricResults } from './support/metric.ts';
import { startBenchPostgres, type BenchPostgres } from './support/postgres.ts';

/**
 * `npm run bench [-- name ...]`: runs every metric module in bench/metrics (or those whose file
 * name contains one of the given words), prints a table and writes bench/results.json as
 * `{ "<metric>": { "value", "unit", "spread"?: { "min", "max", "runs" }, "machine": { "cores",
 * "loadBefore", "loadAfter" } } }`. A figure that is the median of repeated runs shows their
 * spread; every figure shows the load average before and after its module ran, so one taken on a
 * busy machine is visible as such. A filtered run updates only its metrics.
 */

const here = import.meta.dirname;
const resultsFile = path.join(here, 'results.json');

function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

const loadText = (load: number[]) => load.map((l) => l.toFixed(2)).join(' ');

function printTable(results: MetricResults): void {
  const rows = Object.entries(results).map(([name, { value, unit, spread, machine }]) => [
    name,
    formatValue(value),
    unit,
    spread ? `${formatValue(spread.min)}–${formatValue(spread.max)} (${spread.runs.length} runs)` : '',
    machine ? `${machine.loadBefore[0]!.toFixed(1)} → ${machine.loadAfter[0]!.toFixed(1)}` : '',
  ]);
  const header = ['metric', 'value', 'unit', 'min–max', 'load (1 min) before → after'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 1 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
}

async function main(): Promise<void> {
  const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const files = (await fs.readdir(path.join(here, 'metrics')))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
    // The soak runs for minutes: only when asked for by name (`npm run bench -- soak`).
    .filter((f) => (filters.length === 0 ? !f.startsWith('soak') : filters.some((w) => f.includes(w))))
    .sort();
  if (files.length === 0) {
    console.error(`No metric modules match ${filters.join(', ')}`);
    process.exit(1);
  }

  let pg: Promise<BenchPostgres> | undefined;
  const log = (line: string) => console.log(`  ${line}`);
  const ctx: BenchContext = {
    postgres: () => (pg ??= startBenchPostgres(() => undefined)),
    log,
  };

  const cores = os.availableParallelism();
  const busy = (load: number[]) => (load[0]! > cores ? ' (busy machine: expect noisy figures)' : '');
  const startLoad = os.loadavg();
  console.log(`${cores} cores, load average ${loadText(startLoad)}${busy(startLoad)}`);
  const results: MetricResults = {};
  let failed = false;
  try {
    for (const file of files) {
      console.log(`▶ ${file}`);
      const started = Date.now();
      const loadBefore = os.loadavg();
      try {
        const mod = (await import(pathToFileURL(path.join(here, 'metrics', file)).href)) as {
          default: MetricModule;
        };
        const out = await mod.default(ctx);
        const machine: MachineLoad = { cores, loadBefore, loadAfter: os.loadavg() };
        for (const [name, v] of Object.entries(out)) {
          if (name in results) throw new Error(`metric ${name} is reported twice`);
          results[name] = { value: v.value, unit: v.unit, ...(v.spread && { spread: v.spread }), machine };
        }
        log(
          `done in ${((Date.now() - started) / 1000).toFixed(1)} s; load average ${loadText(loadBefore)} ` +
            `before, ${loadText(machine.loadAfter)} after${busy(machine.loadAfter)}`,
        );
      } catch (err) {
        failed = true;
        console.error(
          `  ✗ ${file} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`,
        );
      }
    }
  } finally {
    if (pg) await (await pg).stop();
  }

  let merged: MetricResults = results;
  if (filters.length > 0) {
    const previous = await fs
      .readFile(resultsFile, 'utf8')
      .then((t) => JSON.parse(t) as MetricResults)
      .catch(() => ({}));
    merged = { ...previous, ...results };
  }
  await fs.writeFile(resultsFile, `${JSON.stringify(merged, null, 2)}\n`);
  console.log('');
  printTable(results);
  console.log(`\nWrote ${path.relative(process.cwd(), resultsFile)}`);
  process.exit(failed ? 1 : 0);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
