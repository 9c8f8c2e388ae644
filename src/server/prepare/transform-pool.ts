import os from 'node:os';
import { Piscina } from 'piscina';
import { PrepareError, type PrepareEnvelope, type Prepared, type PrepareInput } from './prepare.ts';
import type { PrepareOutcome, PrepareTask } from './transform-worker.ts';

/**
 * Runs `prepare` (and every later per-email transform) on worker threads, never on the event loop
 * (docs/decisions/0030-worker-pool-for-transforms.md). Each job has a time budget counted from the
 * moment a thread starts it; a job over budget has its thread terminated (piscina replaces it) and
 * fails with `processing_timeout`. A thread that runs out of memory fails the job the same way. When
 * every thread is busy and the queue is full, a job fails at once with `busy`.
 */

export interface TransformPoolOptions {
  /** Threads at most; they start on demand and stop after a minute idle. */
  threads: number;
  /** Milliseconds of processing a job may take. */
  budgetMs: number;
  /** Jobs waiting for a thread, at most. */
  maxQueue?: number;
  /** How long a job may wait for a thread before it fails with `busy`. */
  maxWaitMs?: number;
}

export interface TransformPool {
  prepare(input: PrepareInput, envelope: PrepareEnvelope): Promise<Prepared>;
  close(): Promise<void>;
}

/** One fewer than the cores (the event loop keeps one), at least one, at most four. */
export function defaultThreads(): number {
  return Math.max(1, Math.min(4, os.availableParallelism() - 1));
}

/** In the bundle (dist/server) the worker is plain JavaScript; from source it is TypeScript run through tsx. */
function workerEntry(): { filename: string; execArgv: string[] } {
  if (import.meta.url.endsWith('.ts')) {
    const execArgv = process.execArgv.includes('tsx')
      ? process.execArgv
      : [...process.execArgv, '--import', 'tsx'];
    return { filename: new URL('./transform-worker.ts', import.meta.url).href, execArgv };
  }
  return { filename: new URL('./transform-worker.js', import.meta.url).href, execArgv: [] };
}

function timeout(budgetMs: number): PrepareError {
  return new PrepareError(
    'processing_timeout',
    `Processing this email took longer than ${budgetMs / 1000} seconds and was stopped. ` +
      'Send it without Inline CSS, or make the HTML smaller.',
  );
}

const busy = () =>
  new PrepareError('busy', 'The server is busy processing other emails. Try again in a few seconds.');

export function createTransformPool(options: TransformPoolOptions): TransformPool {
  const entry = workerEntry();
  const piscina = new Piscina<PrepareTask, PrepareOutcome>({
    filename: entry.filename,
    execArgv: entry.execArgv,
    minThreads: 0,
    maxThreads: Math.max(1, options.threads),
    idleTimeout: 60_000,
    maxQueue: options.maxQueue ?? 32,
    resourceLimits: { maxOldGenerationSizeMb: 384 },
  });
  const maxWaitMs = options.maxWaitMs ?? 30_000;

  async function run(task: PrepareTask): Promise<PrepareOutcome> {
    const started = new Float64Array(task.started);
    const queuedAt = Date.now();
    const abort = new AbortController();
    let reason: PrepareError | undefined;
    let timer: NodeJS.Timeout | undefined;
    // The budget counts from the moment a thread picks the job up, not from when it was queued.
    const check = () => {
      const now = Date.now();
      const at = started[0]!;
      if (at === 0) {
        if (now - queuedAt >= maxWaitMs) {
          reason = busy();
          abort.abort(reason);
          return;
        }
        timer = setTimeout(check, Math.min(options.budgetMs, maxWaitMs - (now - queuedAt)));
        return;
      }
      const left = options.budgetMs - (now - at);
      if (left <= 0) {
        reason = timeout(options.budgetMs);
        abort.abort(reason);
        return;
      }
      timer = setTimeout(check, left);
    };
    timer = setTimeout(check, options.budgetMs);
    try {
      return await piscina.run(task, { signal: abort.signal });
    } catch (err) {
      if (reason) throw reason;
      const e = err as { message?: string; code?: string };
      if (e.message === 'Task queue is at limit') throw busy();
      // A thread that ran out of memory (or died otherwise) on this job.
      if (e.code === 'ERR_WORKER_OUT_OF_MEMORY') {
        throw new PrepareError(
          'processing_timeout',
          'Processing this email needed more memory than a job may use and was stopped. Make the HTML smaller.',
        );
      }
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    async prepare(input, envelope) {
      const outcome = await run({
        input,
        envelope: { ...envelope, date: envelope.date.getTime() },
        started: new SharedArrayBuffer(8),
      });
      if (outcome.ok) return outcome.prepared;
      throw new PrepareError(outcome.code, outcome.message);
    },
    async close() {
      await piscina.close({ force: true });
    },
  };
}
