import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BenchContext, MetricModule, MetricResults } from './support/metric.ts';
import { startBenchPostgres, type BenchPostgres } from './support/postgres.ts';

/**
 * `npm run bench [-- name ...]`: runs every metric module in bench/metrics (or those whose file
 * name contains one of the given words), prints a table and writes bench/results.json as
 * `{ "<metric>": { "value": number, "unit": string } }`. A filtered run updates only its metrics.
 */

const here = import.meta.dirname;
const resultsFile = path.join(here, 'results.json');

function formatValue(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

function printTable(results: MetricResults): void {
  const rows = Object.entries(results).map(([name, { value, unit }]) => [name, formatValue(value), unit]);
  const header = ['metric', 'value', 'unit'];
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

  const load = os.loadavg()[0]!;
  const cores = os.availableParallelism();
  console.log(
    `${cores} cores, load average ${load.toFixed(2)}${load > cores ? ' (busy machine: expect noisy figures)' : ''}`,
  );
  const results: MetricResults = {};
  let failed = false;
  try {
    for (const file of files) {
      console.log(`▶ ${file}`);
      const started = Date.now();
      try {
        const mod = (await import(pathToFileURL(path.join(here, 'metrics', file)).href)) as {
          default: MetricModule;
        };
        const out = await mod.default(ctx);
        for (const [name, v] of Object.entries(out)) {
          if (name in results) throw new Error(`metric ${name} is reported twice`);
          results[name] = { value: v.value, unit: v.unit };
        }
        log(`done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
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
