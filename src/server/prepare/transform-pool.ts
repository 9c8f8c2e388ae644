import { fork, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// Types only from prepare.ts: its code (the inliner, the template engines, html-to-text) runs in the
// child processes and is not loaded by the server's own process.
import { needsLoading } from './job-loading.ts';
import type { PrepareEnvelope, PrepareInput } from './prepare.ts';
import { PrepareError } from './prepare-error.ts';
import type { PixelDiffResult } from '../render/pixel-diff.ts';
import type {
  ChecksRequest,
  FromWorker,
  PixelDiffTask,
  PreparedWithChecks,
  PrepareTask,
  ToWorker,
} from './transform-task.ts';

/**
 * Runs `prepare` (and every later per-email transform) in a small pool of child processes, never on
 * the event loop (docs/decisions/0050-transform-process-pool.md). Processes, not worker threads: the
 * inliner is native code, and a thread's terminate() cannot stop native code (measured: it keeps
 * running, and burning a core, after terminate() is called), while a process can always be killed.
 * A crash of native code takes down one transform process, never the server.
 *
 * Each job has a time budget counted from the moment its process has loaded what the job needs (the
 * MJML compiler is loaded with the first MJML job, and that can take seconds on a busy machine; it
 * may take up to LOAD_ALLOWANCE_MS). A job over budget
 * has its process killed (the pool starts another when there is work) and fails with
 * `processing_timeout`; a process that dies on a job (out of memory, a crash) fails it with
 * `processing_failed`. When every process is busy, jobs wait in a bounded queue; a full queue, or a
 * wait longer than `maxWaitMs` behind busy processes (not behind one that is starting), fails the
 * job with `busy`.
 *
 * The queue is fair between owners (the user a job is for): a free process takes the job of the
 * owner with the fewest jobs running, then the one served longest ago, then the oldest, so that one
 * user's flood of slow emails delays another user's job by at most the jobs already running; an
 * owner may have at most `maxQueuedPerOwner` jobs waiting (`too_many_jobs` beyond), so that one
 * user cannot fill the queue for everyone; and a full queue makes room for an owner with fewer jobs
 * waiting than another by turning away that other's newest (`makeRoom`), so that a few users cannot
 * fill it together either (docs/decisions/0117-fair-transform-queue.md).
 */

export interface TransformPoolOptions {
  /** Processes at most; they start on demand and stop after `idleMs` without work. */
  processes: number;
  /** Milliseconds of processing one job may take. */
  budgetMs: number;
  /** Jobs waiting for a process, at most. */
  maxQueue?: number;
  /** How long a job may wait for a process before it fails with `busy`. */
  maxWaitMs?: number;
  /** Jobs one owner may have waiting, at most. */
  maxQueuedPerOwner?: number;
  idleMs?: number;
  /** Heap cap of each process (MiB). */
  maxOldSpaceMb?: number;
  /** The processes' entry; absent: transform-worker. Tests give a stand-in that speaks its messages. */
  entry?: string;
}

export interface TransformPool {
  /**
   * `prepare`, and with `options.checks` the static checks of the pre-send checklist on its result
   * (src/server/checks/static-checks.ts), in the same job and time budget.
   */
  prepare(
    input: PrepareInput,
    envelope: PrepareEnvelope,
    options?: { checks?: ChecksRequest; owner?: string },
  ): Promise<PreparedWithChecks>;
  /**
   * The row-aligned pixel diff of two PNGs of the same width (src/server/render/pixel-diff.ts), in
   * the same processes, queue and time budget; fails with PrepareError as `prepare` does.
   */
  pixelDiff(left: Uint8Array, right: Uint8Array, owner?: string): Promise<PixelDiffResult>;
  close(): Promise<void>;
}

/** One fewer than the cores (the event loop keeps one), and two to four. */
export function defaultProcesses(): number {
  return Math.max(2, Math.min(4, os.availableParallelism() - 1));
}

/** The pool an app starts from its configuration (PREPARE_PROCESSES, PREPARE_BUDGET_MS). */
export function transformPoolOptions(config: {
  prepareProcesses: number;
  prepareBudgetMs: number;
}): TransformPoolOptions {
  return { processes: config.prepareProcesses || defaultProcesses(), budgetMs: config.prepareBudgetMs };
}

/**
 * In the bundle (dist/server) the entries are plain JavaScript beside main.js. From source (dev,
 * tests, benchmarks) each is bundled once per process with esbuild into node_modules/.cache, named
 * by its content: a plain-JavaScript child starts two to three times faster than one run through tsx.
 */
export type Entry = 'transform-worker' | 'measure-thread';
const sourceEntries = new Map<Entry, Promise<string>>();
export function bundledEntry(name: Entry): Promise<string> {
  if (!import.meta.url.endsWith('.ts'))
    return Promise.resolve(fileURLToPath(new URL(`./${name}.js`, import.meta.url)));
  let file = sourceEntries.get(name);
  if (!file) sourceEntries.set(name, (file = buildEntry(name)));
  return file;
}

async function buildEntry(name: Entry): Promise<string> {
  // Only from source: the bundle never loads esbuild.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [fileURLToPath(new URL(`./${name}.ts`, import.meta.url))],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  const dir = fileURLToPath(new URL('../../../node_modules/.cache/proofmail/', import.meta.url));
  const file = path.join(dir, `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true });
    // Written aside and renamed: several test processes may do this at once.
    const temp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(temp, code);
    fs.renameSync(temp, file);
  }
  return file;
}

/** How long a process may take to load what a job needs before the job's own budget starts. */
const LOAD_ALLOWANCE_MS = 30_000;

/**
 * The young generation's semispace cap of transform processes, in MiB (V8's default is 16): a 100 KB
 * email's job then leaves its garbage there (docs/decisions/0095-transform-young-generation.md).
 */
export const TRANSFORM_SEMI_SPACE_MB = 64;

/** Niceness of transform processes (0 is normal, 19 the lowest priority). */
const TRANSFORM_NICENESS = 10;

/**
 * The way out of a job that ran too long or killed its process, in the terms of what it asked for:
 * its merge tags' loops (with a template), Inline CSS (only when it was on), its size.
 */
function wayOut(input: PrepareTask['input'], loop: string): string {
  const ways = [
    ...(input.template ? [`check its merge tags for a loop that ${loop}`] : []),
    ...(input.inlineCss ? ['send it without Inline CSS'] : []),
    'make it smaller',
  ];
  const sentence = ways.length === 1 ? ways[0]! : `${ways.slice(0, -1).join(', ')}, or ${ways.at(-1)!}`;
  return `${sentence[0]!.toUpperCase()}${sentence.slice(1)}.`;
}

const timeout = (budgetMs: number, task: PrepareTask | PixelDiffTask) =>
  'pixelDiff' in task
    ? new PrepareError(
        'processing_timeout',
        `Comparing the two renders took longer than ${budgetMs / 1000} seconds and was stopped. Compare them at a smaller width.`,
      )
    : new PrepareError(
        'processing_timeout',
        `Processing this email took longer than ${budgetMs / 1000} seconds and was stopped. ` +
          wayOut(task.input, 'runs too long'),
      );
const busy = () =>
  new PrepareError('busy', 'The server is busy processing other emails. Try again in a few seconds.');
const tooMany = () =>
  new PrepareError(
    'too_many_jobs',
    'You have too many emails being processed at once. Wait for them to finish, then try again.',
  );
const died = (how: string, task: PrepareTask | PixelDiffTask) =>
  new PrepareError(
    'processing_failed',
    `Processing this email stopped the process that handled it (${how}). ` +
      ('input' in task
        ? wayOut(task.input, 'makes far too much')
        : 'Compare the renders at a smaller width.'),
  );

interface Job {
  id: number;
  task: PrepareTask | PixelDiffTask;
  /** Who the job is for (a user id); a job without one is an owner of its own. */
  owner?: string;
  resolve: (outcome: never) => void;
  reject: (err: Error) => void;
  waitTimer?: NodeJS.Timeout;
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  job?: Job;
  budgetTimer?: NodeJS.Timeout;
  idleTimer?: NodeJS.Timeout;
  killed?: boolean;
}

export function createTransformPool(options: TransformPoolOptions): TransformPool {
  // The process's entry, and the entry of its measuring thread (measure-beside.ts) as its argument.
  const entry: Promise<[string, ...string[]]> = options.entry
    ? Promise.resolve([options.entry])
    : Promise.all([bundledEntry('transform-worker'), bundledEntry('measure-thread')]);
  // A failed build is reported on the first job, not as an unhandled rejection.
  entry.catch(() => undefined);
  const maxQueue = options.maxQueue ?? 32;
  const maxWaitMs = options.maxWaitMs ?? 30_000;
  const maxQueuedPerOwner = options.maxQueuedPerOwner ?? 16;
  const idleMs = options.idleMs ?? 60_000;
  const execArgv = [
    `--max-old-space-size=${options.maxOldSpaceMb ?? 384}`,
    `--max-semi-space-size=${TRANSFORM_SEMI_SPACE_MB}`,
  ];
  const slots = new Set<Slot>();
  const queue: Job[] = [];
  /** When each owner with a job waiting or running last had one started (a count of starts). */
  const lastStart = new Map<string, number>();
  let starts = 0;
  let nextId = 1;
  let closed = false;

  /** An idle process must not keep the server's event loop alive; a busy one must. */
  function hold(slot: Slot, busy: boolean): void {
    const channel = slot.child.channel as { ref(): void; unref(): void } | undefined;
    if (busy) {
      slot.child.ref();
      channel?.ref();
    } else {
      slot.child.unref();
      channel?.unref();
    }
  }

  function retire(slot: Slot): void {
    if (slot.killed) return;
    slot.killed = true;
    clearTimeout(slot.budgetTimer);
    clearTimeout(slot.idleTimer);
    slots.delete(slot);
    slot.child.kill('SIGKILL');
  }

  function finish(slot: Slot): Job | undefined {
    const job = slot.job;
    slot.job = undefined;
    clearTimeout(slot.budgetTimer);
    return job;
  }

  let spawning = 0;
  function spawn(): void {
    spawning++;
    entry.then(
      ([file, ...args]) => {
        spawning--;
        if (!closed) start(file, args);
      },
      (err: unknown) => {
        spawning--;
        // Without an entry nothing can run: fail what waits, rather than let it time out.
        for (const job of queue.splice(0)) {
          clearTimeout(job.waitTimer);
          job.reject(died(`could not start: ${err instanceof Error ? err.message : String(err)}`, job.task));
        }
      },
    );
  }

  function start(file: string, args: string[]): void {
    const child = fork(file, args, {
      execArgv,
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    // Below the web process in the scheduler: on a busy machine the event loop gets the CPU first.
    if (child.pid !== undefined) {
      try {
        os.setPriority(child.pid, TRANSFORM_NICENESS);
      } catch {
        // Not permitted here (some containers): the pool works the same, only without the edge.
      }
    }
    const slot: Slot = { child, ready: false };
    slots.add(slot);
    hold(slot, true);
    child.on('message', (message: FromWorker) => {
      if ('ready' in message) {
        slot.ready = true;
        hold(slot, false);
        dispatch();
        return;
      }
      if ('loaded' in message) {
        if (slot.job?.id === message.id) armBudget(slot, slot.job, options.budgetMs);
        return;
      }
      const job = finish(slot);
      if (!job || job.id !== message.id) return;
      const outcome = message.outcome;
      if (outcome.ok)
        (job.resolve as (value: unknown) => void)('result' in outcome ? outcome.result : outcome.prepared);
      else {
        const { code, message: text } = outcome;
        job.reject(new PrepareError(code, text, 'problems' in outcome ? outcome.problems : undefined));
      }
      hold(slot, false);
      slot.idleTimer = setTimeout(() => retire(slot), idleMs);
      slot.idleTimer.unref(); // idle, it holds nothing (the process exits when its channel closes)
      dispatch();
    });
    child.on('exit', (code, signal) => {
      const job = finish(slot);
      const wasKilled = slot.killed;
      retire(slot);
      if (job && !wasKilled) job.reject(died(signal ? `signal ${signal}` : `exit code ${code}`, job.task));
      if (!closed) dispatch();
    });
    child.on('error', () => retire(slot));
  }

  /** Fails the slot's job, and stops its process, unless it answers within `ms` from now. */
  function armBudget(slot: Slot, job: Job, ms: number): void {
    clearTimeout(slot.budgetTimer);
    slot.budgetTimer = setTimeout(() => {
      if (slot.job !== job) return;
      finish(slot);
      retire(slot);
      job.reject(timeout(options.budgetMs, job.task));
      dispatch();
    }, ms);
  }

  function dispatch(): void {
    if (closed) return;
    while (queue.length > 0) {
      const idle = [...slots].find((s) => s.ready && !s.job && !s.killed);
      if (!idle) {
        const starting = spawning + [...slots].filter((s) => !s.ready).length;
        if (slots.size + spawning < options.processes && starting < queue.length) spawn();
        return;
      }
      const [job] = queue.splice(nextJob(), 1) as [Job];
      if (job.owner !== undefined) lastStart.set(job.owner, ++starts);
      clearTimeout(job.waitTimer);
      clearTimeout(idle.idleTimer);
      idle.job = job;
      hold(idle, true);
      // A job that needs code loaded first (job-loading.ts) has its budget start again when its
      // process says that code is loaded; every other job's budget starts now.
      const loads = !('pixelDiff' in job.task) && needsLoading(job.task.input);
      armBudget(idle, job, loads ? options.budgetMs + LOAD_ALLOWANCE_MS : options.budgetMs);
      idle.child.send({ id: job.id, task: job.task } as ToWorker);
    }
  }

  /**
   * The queued job a free process takes: its owner has the fewest jobs running, then was served
   * longest ago (never counts as longest), then it is the oldest.
   */
  function nextJob(): number {
    if (queue.length === 1) return 0;
    const running = new Map<string, number>();
    for (const slot of slots) {
      const owner = slot.job?.owner;
      if (owner !== undefined) running.set(owner, (running.get(owner) ?? 0) + 1);
    }
    // Owners with nothing waiting or running are served afresh: what they had is forgotten.
    for (const owner of lastStart.keys())
      if (!running.has(owner) && !queue.some((j) => j.owner === owner)) lastStart.delete(owner);
    let best = 0;
    let bestKey: [number, number] | undefined;
    for (const [i, job] of queue.entries()) {
      const key: [number, number] =
        job.owner === undefined ? [0, 0] : [running.get(job.owner) ?? 0, lastStart.get(job.owner) ?? 0];
      if (!bestKey || key[0] < bestKey[0] || (key[0] === bestKey[0] && key[1] < bestKey[1])) {
        best = i;
        bestKey = key;
      }
    }
    return best;
  }

  /**
   * Room in the full queue for a job of `owner` (a job without one is an owner of its own): the
   * newest waiting job of the owner with the most waiting is turned away with `busy`, as a full
   * queue turns one away, when that owner has more waiting than `owner` would have with its job in.
   * Among owners with as many, the newest job goes. False, and nothing turned away, when no owner
   * has more: then every owner has its fair share, and the arriving job is the one refused.
   */
  function makeRoom(owner: string | undefined): boolean {
    const waitingOf = new Map<string, number>();
    for (const job of queue)
      if (job.owner !== undefined) waitingOf.set(job.owner, (waitingOf.get(job.owner) ?? 0) + 1);
    const arriving = (owner === undefined ? 0 : (waitingOf.get(owner) ?? 0)) + 1;
    let most = 0;
    let newest = -1;
    for (let i = queue.length - 1; i >= 0; i--) {
      const of = queue[i]!.owner;
      const waiting = of === undefined ? 1 : waitingOf.get(of)!;
      if (waiting > most) {
        most = waiting;
        newest = i;
      }
    }
    if (most <= arriving) return false;
    const [turnedAway] = queue.splice(newest, 1) as [Job];
    clearTimeout(turnedAway.waitTimer);
    turnedAway.reject(busy());
    return true;
  }

  function submit<T>(task: PrepareTask | PixelDiffTask, owner?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (closed) return reject(busy());
      if (owner !== undefined && queue.filter((j) => j.owner === owner).length >= maxQueuedPerOwner)
        return reject(tooMany());
      if (queue.length >= maxQueue && !makeRoom(owner)) return reject(busy());
      const job: Job = { id: nextId++, task, owner, resolve: resolve as (value: never) => void, reject };
      // Waiting for a process that is still starting is not being turned away: wait again.
      const giveUp = () => {
        const at = queue.indexOf(job);
        if (at === -1) return;
        if (spawning > 0 || [...slots].some((s) => !s.ready && !s.killed)) {
          job.waitTimer = setTimeout(giveUp, maxWaitMs);
          return;
        }
        queue.splice(at, 1);
        reject(busy());
      };
      job.waitTimer = setTimeout(giveUp, maxWaitMs);
      queue.push(job);
      dispatch();
    });
  }

  return {
    prepare(input, envelope, options) {
      return submit<PreparedWithChecks>(
        {
          input,
          envelope: { ...envelope, date: envelope.date.getTime() },
          ...(options?.checks && { checks: options.checks }),
        },
        options?.owner,
      );
    },
    pixelDiff(left, right, owner) {
      return submit<PixelDiffResult>({ pixelDiff: { left, right } }, owner);
    },
    async close() {
      closed = true;
      for (const job of queue.splice(0)) {
        clearTimeout(job.waitTimer);
        job.reject(busy());
      }
      const running = [...slots].filter((s) => s.child.exitCode === null && s.child.signalCode === null);
      const exits = running.map((slot) => new Promise<void>((r) => slot.child.once('exit', () => r())));
      // An idle process does not hold the event loop (hold): waiting for its exit must, or a caller
      // with nothing else running would end before close() resolved.
      for (const slot of running) hold(slot, true);
      for (const slot of [...slots]) {
        const job = finish(slot);
        retire(slot);
        job?.reject(busy());
      }
      await Promise.all(exits);
    },
  };
}
