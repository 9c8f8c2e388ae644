import { percentile } from './load.ts';
import type { BenchPostgres } from './postgres.ts';

/** How a figure varied over repeated runs in one bench run: its value is their median. */
export interface Spread {
  min: number;
  max: number;
  /** Every run's figure, in the order measured. */
  runs: number[];
}

/** The machine while a metric module ran: a figure taken on a busy machine says so. */
export interface MachineLoad {
  cores: number;
  /** os.loadavg() (1, 5 and 15 minutes) before and after the module ran. */
  loadBefore: number[];
  loadAfter: number[];
}

/** One measured figure: bench/results.json maps each metric name to one of these. */
export interface MetricValue {
  value: number;
  unit: string;
  /** Set when the figure is the median of repeated runs. */
  spread?: Spread;
  /** Filled in by the runner. */
  machine?: MachineLoad;
}

export type MetricResults = Record<string, MetricValue>;

/** What the runner hands every metric module. */
export interface BenchContext {
  /** The shared embedded PostgreSQL, started on first use. */
  postgres(): Promise<BenchPostgres>;
  log(line: string): void;
}

/**
 * A metric module is bench/metrics/<name>.ts with a default export of this type. It returns one
 * or more metrics; names are snake_case and unique across modules.
 */
export type MetricModule = (ctx: BenchContext) => Promise<MetricResults>;

/** The median of repeated runs, with their spread; `decimals` rounds value, min and max alike. */
export function fromRuns(runs: number[], unit: string, decimals = 0): MetricValue {
  if (runs.length === 0) throw new Error('fromRuns: no runs');
  const round = (x: number) => Math.round(x * 10 ** decimals) / 10 ** decimals;
  const sorted = [...runs].sort((a, b) => a - b);
  return {
    value: round(sorted[Math.floor(sorted.length / 2)]!),
    unit,
    spread: { min: round(sorted[0]!), max: round(sorted.at(-1)!), runs: runs.map(round) },
  };
}

/** A latency measured in rounds: each round's `p`th percentile, the median round with the spread. */
export function percentileOfRounds(rounds: number[][], p: number, unit = 'ms', decimals = 1): MetricValue {
  return fromRuns(
    rounds.map((samples) => percentile(samples, p)),
    unit,
    decimals,
  );
}

/** Consecutive samples cut into `rounds` rounds of equal length (any remainder goes to none). */
export function inRounds<T>(samples: T[], rounds = 3): T[][] {
  const size = Math.floor(samples.length / rounds);
  return Array.from({ length: rounds }, (_, r) => samples.slice(r * size, (r + 1) * size));
}
