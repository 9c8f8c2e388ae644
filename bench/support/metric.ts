import type { BenchPostgres } from './postgres.ts';

/** One measured figure: bench/results.json maps each metric name to one of these. */
export interface MetricValue {
  value: number;
  unit: string;
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
