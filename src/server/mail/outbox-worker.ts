import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { systemClock, type Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import { startOutboxListener, type OutboxListener } from './outbox-listener.ts';
import {
  byQueueOrder,
  claimDue,
  expireOld,
  extendLeases,
  markFailed,
  markRetry,
  markSent,
  reclaimExpiredLeases,
  release,
  type OutboxRow,
  type SentOutcome,
} from './outbox.repo.ts';
import { MAIL_PRIORITY } from './outbox.ts';
import type { DeliveryResult } from './smtp-outcome.ts';
import type { MailTransport } from './transport.ts';

/**
 * Delivers the outbox (docs/architecture.md §5, docs/decisions/0003-database-is-the-queue.md).
 * Each worker keeps up to `concurrency` mails in flight and up to two rounds more claimed in a
 * small buffer, in queue order (priority, then due time and age). A
 * system or Pro mail enqueued behind a Free backlog is claimed at once (NOTIFY carries the
 * priority) and goes to the front of the buffer: it waits for the mails in flight, not for the
 * backlog. It wakes on NOTIFY, on its own retry timers and on a slow poll; it renews its
 * leases while it holds rows, and any worker returns rows whose lease ran out (their worker died)
 * to the queue, flagged.
 */

export interface OutboxWorkerOptions {
  db: Db;
  transport: MailTransport;
  /** Mails in flight at once (MAIL_WORKERS). */
  concurrency: number;
  clock?: Clock;
  /** Shown in locked_by; unique per worker. */
  workerId?: string;
  /** LISTEN on this database for wake-ups; without it the worker only polls. */
  listenConnectionString?: string;
  /** How long a claim is valid without renewal; renewed every leaseMs/3 while delivering. */
  leaseMs?: number;
  /** Fallback poll for due mail (missed notifications, retries scheduled by other processes). */
  pollIntervalMs?: number;
  /** Retry delay: baseMs · 2^(attempt-1), capped at maxMs, with jitter (half fixed, half random). */
  backoff?: { baseMs: number; maxMs: number };
  /** A mail not delivered this long after it was enqueued fails. */
  maxAgeMs?: number;
  random?: () => number;
  log?: (level: 'info' | 'warn' | 'error', message: string) => void;
}

/** Delay of the extra claim after a NOTIFY (see enqueueMail's coalescing of Free NOTIFYs). */
const TRAILING_WAKE_MS = 100;

export const OUTBOX_DEFAULTS = {
  leaseMs: 120_000,
  pollIntervalMs: 5_000,
  backoff: { baseMs: 10_000, maxMs: 30 * 60_000 },
  maxAgeMs: 24 * 60 * 60_000,
};

export interface StopResult {
  /** Deliveries that finished (either way) after stop() began, within the deadline. */
  finished: number;
  /** Rows handed back to the queue: claimed but not started, or still in flight at the deadline. */
  released: number;
}

function formatDuration(ms: number): string {
  const hours = ms / 3_600_000;
  if (hours >= 1 && Number.isInteger(hours)) return `${hours} hour${hours === 1 ? '' : 's'}`;
  const minutes = ms / 60_000;
  if (minutes >= 1 && Number.isInteger(minutes)) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  if (ms < 1_000) return `${ms} ms`;
  const seconds = Math.round(ms / 1000);
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** Exponential backoff with jitter: attempt 1 → ~base, doubling, never above max. */
export function backoffDelay(
  attempt: number,
  backoff: { baseMs: number; maxMs: number },
  random: () => number,
): number {
  const exp = Math.min(backoff.maxMs, backoff.baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

interface InFlight {
  row: OutboxRow;
  abort: AbortController;
}

export class OutboxWorker {
  readonly workerId: string;
  private readonly db: Db;
  private readonly transport: MailTransport;
  private readonly concurrency: number;
  private readonly clock: Clock;
  private readonly leaseMs: number;
  private readonly pollIntervalMs: number;
  private readonly backoff: { baseMs: number; maxMs: number };
  private readonly maxAgeMs: number;
  private readonly random: () => number;
  private readonly log: NonNullable<OutboxWorkerOptions['log']>;
  private readonly listenConnectionString: string | undefined;

  private state: 'new' | 'running' | 'stopping' | 'stopped' = 'new';
  /**
   * Claimed but not started yet, in queue order. A small buffer (up to one round of work) keeps
   * every slot busy while the next claim is on its way; a system or Pro mail claimed later still
   * goes to its front.
   */
  private ready: OutboxRow[] = [];
  private readonly inFlight = new Map<string, InFlight>();
  /** Delivered, waiting to be recorded; written in batches, one statement per batch. */
  private sentQueue: SentOutcome[] = [];
  private sentWriting = new Set<string>();
  private flushing: Promise<void> | undefined;
  private claiming: Promise<void> | undefined;
  private wakeAgain = false;
  private listener: OutboxListener | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  private leaseTimer: NodeJS.Timeout | undefined;
  private wakeTimer: { at: number; timer: NodeJS.Timeout } | undefined;
  private dbErrorUntil = 0;
  private finishedWhileStopping = 0;
  private idleWaiters: (() => void)[] = [];
  private maintaining = false;
  /** A system or Pro mail was enqueued: claim now even if the buffer is full enough. */
  private urgent = false;

  constructor(options: OutboxWorkerOptions) {
    this.db = options.db;
    this.transport = options.transport;
    this.concurrency = Math.max(1, Math.floor(options.concurrency));
    this.clock = options.clock ?? systemClock;
    this.workerId = options.workerId ?? `${os.hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
    this.leaseMs = options.leaseMs ?? OUTBOX_DEFAULTS.leaseMs;
    this.pollIntervalMs = options.pollIntervalMs ?? OUTBOX_DEFAULTS.pollIntervalMs;
    this.backoff = options.backoff ?? OUTBOX_DEFAULTS.backoff;
    this.maxAgeMs = options.maxAgeMs ?? OUTBOX_DEFAULTS.maxAgeMs;
    this.random = options.random ?? Math.random;
    this.log = options.log ?? (() => undefined);
    this.listenConnectionString = options.listenConnectionString;
  }

  /** Mails this worker is delivering right now. */
  get activeCount(): number {
    return this.inFlight.size;
  }

  start(): void {
    if (this.state !== 'new') throw new Error('An outbox worker can be started once');
    this.state = 'running';
    if (this.listenConnectionString) {
      this.listener = startOutboxListener({
        connectionString: this.listenConnectionString,
        onWake: (priority) => {
          if (priority !== undefined && priority < MAIL_PRIORITY.free) this.urgent = true;
          this.wake();
          this.trailingWake();
        },
        log: (m) => this.log('warn', m),
      });
    }
    this.pollTimer = setInterval(() => this.wake(), this.pollIntervalMs);
    this.pollTimer.unref();
    const leaseTick = Math.max(20, Math.floor(this.leaseMs / 3));
    this.leaseTimer = setInterval(() => void this.maintain(), leaseTick);
    this.leaseTimer.unref();
    void this.maintain();
    this.wake();
  }

  /**
   * Stops claiming, lets in-flight deliveries finish until the deadline, then aborts the rest and
   * hands them back to the queue (flagged: they may have reached the server). Claimed mail not
   * started yet goes back at once, unflagged.
   */
  async stop({ deadlineMs = 10_000 }: { deadlineMs?: number } = {}): Promise<StopResult> {
    if (this.state === 'stopped' || this.state === 'new') {
      this.state = 'stopped';
      return { finished: 0, released: 0 };
    }
    this.state = 'stopping';
    const started = Date.now();
    clearInterval(this.pollTimer);
    clearTimeout(this.trailingTimer);
    if (this.wakeTimer) clearTimeout(this.wakeTimer.timer);
    this.wakeTimer = undefined;
    const listenerStopped = this.listener?.stop();
    this.finishedWhileStopping = 0;
    await this.claiming; // what it got lands in `ready`, released below
    let released = 0;
    const unstarted = this.ready.splice(0).map((r) => r.id);
    released += await release(this.db, { workerId: this.workerId, ids: unstarted, attempted: false }).catch(
      (err: unknown) => {
        this.log(
          'error',
          `outbox: could not release ${unstarted.length} claimed mail(s) at shutdown (${String(err)})`,
        );
        return 0;
      },
    );
    // Keep ~20% of the deadline (at most 2 s) to record results and hand back what is left.
    const reserve = Math.min(2_000, deadlineMs * 0.2);
    await this.whenIdle(Math.max(0, deadlineMs - reserve - (Date.now() - started)));
    if (this.inFlight.size > 0) {
      const stuck = [...this.inFlight.values()];
      const ids = stuck.map((f) => f.row.id);
      for (const f of stuck) f.abort.abort(new Error('worker stopping'));
      try {
        released += await release(this.db, { workerId: this.workerId, ids, attempted: true });
      } catch (err) {
        this.log(
          'error',
          `outbox: could not release ${ids.length} mail(s) at shutdown; their leases will expire (${String(err)})`,
        );
      }
      this.log(
        'warn',
        `outbox: stopped with ${ids.length} mail(s) still in flight; handed back to the queue`,
      );
    }
    await this.flushSent();
    clearInterval(this.leaseTimer);
    await listenerStopped;
    this.state = 'stopped';
    return { finished: this.finishedWhileStopping, released };
  }

  /** Starts buffered mail on free slots and claims more when the buffer runs low. */
  wake(): void {
    if (this.state !== 'running') return;
    this.dispatch();
    if (this.claiming) {
      this.wakeAgain = true;
      return;
    }
    this.claiming = this.claimLoop().finally(() => {
      this.claiming = undefined;
      if (this.wakeAgain) {
        this.wakeAgain = false;
        this.wake();
      }
    });
  }

  private dispatch(): void {
    while (this.state === 'running' && this.inFlight.size < this.concurrency && this.ready.length > 0) {
      this.launch(this.ready.shift()!);
    }
  }

  private async claimLoop(): Promise<void> {
    // Claim when at most one round is buffered, up to three rounds in hand (in flight + ready):
    // claims come in batches (each is a durable commit), and no slot waits for one. A system or
    // Pro mail makes us claim at once, and lands at the front of the buffer.
    const lowWater = this.concurrency;
    const capacity = this.concurrency * 3;
    while (this.state === 'running') {
      this.wakeAgain = false;
      const urgent = this.urgent;
      this.urgent = false;
      if (this.ready.length > lowWater && !urgent) return;
      const limit = Math.max(urgent ? 1 : 0, capacity - this.inFlight.size - this.ready.length);
      if (limit <= 0) return;
      if (Date.now() < this.dbErrorUntil) return;
      const now = this.clock.now();
      let rows: OutboxRow[];
      try {
        rows = await claimDue(this.db, {
          workerId: this.workerId,
          limit,
          now,
          leaseUntil: new Date(now.getTime() + this.leaseMs),
        });
      } catch (err) {
        // The database is unreachable: back off briefly; the poll brings us back.
        this.dbErrorUntil = Date.now() + Math.min(this.pollIntervalMs, 2_000);
        this.log('error', `outbox: could not claim mail (${(err as Error).message})`);
        return;
      }
      if (rows.length > 0) {
        this.ready = [...this.ready, ...rows].sort(byQueueOrder);
        this.dispatch();
      }
      if (rows.length < limit) return; // nothing more due right now
    }
  }

  private launch(row: OutboxRow): void {
    const abort = new AbortController();
    this.inFlight.set(row.id, { row, abort });
    void this.deliver(row, abort.signal)
      .catch((err: unknown) => this.log('error', `outbox: delivery of ${row.id} crashed (${String(err)})`))
      .finally(() => {
        this.inFlight.delete(row.id);
        if (this.state === 'stopping' && !abort.signal.aborted) this.finishedWhileStopping++;
        if (this.inFlight.size === 0) this.notifyIdle();
        this.wake();
      });
  }

  private async deliver(row: OutboxRow, signal: AbortSignal): Promise<void> {
    const now = this.clock.now();
    if (now.getTime() - row.created_at.getTime() > this.maxAgeMs) {
      await this.settle(row, {
        status: 'failed',
        code: row.last_error_code,
        message: `Not delivered within ${formatDuration(this.maxAgeMs)}${row.last_error ? `; last error: ${row.last_error}` : ''}`,
        uncertain: false,
      });
      return;
    }
    const result = await this.transport.deliver(
      {
        messageId: row.message_id,
        to: row.to_addresses,
        replyTo: row.reply_to,
        subject: row.subject,
        html: row.html,
        text: row.text,
        date: row.created_at,
      },
      { signal },
    );
    if (signal.aborted) return; // released at shutdown; the row is no longer ours
    if (result.status === 'sent') {
      // The slot is free as soon as the server said yes; the record follows in the next batch.
      const note =
        result.rejected.length > 0
          ? {
              code: result.rejected[0]!.code,
              text: `Delivered, but the server refused ${result.rejected.map((r) => `${r.address} (${r.message})`).join(', ')}`,
            }
          : null;
      this.sentQueue.push({ id: row.id, sentAt: this.clock.now(), note });
      void this.flushSent();
      return;
    }
    await this.settle(row, result);
  }

  /** Writes queued `sent` outcomes, one statement per batch; one batch at a time. */
  private flushSent(): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.sentQueue.length === 0) return Promise.resolve();
    this.flushing = (async () => {
      while (this.sentQueue.length > 0) {
        const batch = this.sentQueue.splice(0, 500);
        for (const o of batch) this.sentWriting.add(o.id);
        try {
          const written = await this.retrying(() =>
            markSent(this.db, { workerId: this.workerId, outcomes: batch }),
          );
          const lost = batch.filter((o) => !written.has(o.id));
          if (lost.length > 0)
            this.log(
              'warn',
              `outbox: lost the lease on ${lost.length} mail(s) before recording them as sent`,
            );
        } catch (err) {
          // Their leases expire and they are redelivered, flagged: at least once, never lost.
          this.log(
            'error',
            `outbox: could not record ${batch.length} sent mail(s) (${(err as Error).message})`,
          );
        } finally {
          for (const o of batch) this.sentWriting.delete(o.id);
        }
      }
    })().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async retrying<T>(write: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await write();
      } catch (err) {
        if (attempt >= 3) throw err;
        await new Promise((r) => setTimeout(r, 250 * attempt));
      }
    }
  }

  /** Records a retry or a failure (rare, so one row at a time). */
  private async settle(row: OutboxRow, result: Exclude<DeliveryResult, { status: 'sent' }>): Promise<void> {
    const held = await this.retrying(() => this.write(row, result));
    if (!held)
      this.log('warn', `outbox: lost the lease on ${row.id} before recording its outcome (${result.status})`);
  }

  private async write(row: OutboxRow, result: Exclude<DeliveryResult, { status: 'sent' }>): Promise<boolean> {
    const base = { id: row.id, workerId: this.workerId };
    if (result.status === 'failed') {
      this.log('warn', `outbox: ${row.id} failed permanently: ${result.message}`);
      return markFailed(this.db, {
        ...base,
        code: result.code,
        text: result.message,
        uncertain: result.uncertain,
      });
    }
    const next = new Date(this.clock.now().getTime() + backoffDelay(row.attempts, this.backoff, this.random));
    if (next.getTime() - row.created_at.getTime() > this.maxAgeMs) {
      return markFailed(this.db, {
        ...base,
        code: result.code,
        text: `Not delivered within ${formatDuration(this.maxAgeMs)} (${row.attempts} attempt${row.attempts === 1 ? '' : 's'}); last error: ${result.message}`,
        uncertain: result.uncertain,
      });
    }
    const held = await markRetry(this.db, {
      ...base,
      nextAttemptAt: next,
      code: result.code,
      text: result.message,
      uncertain: result.uncertain,
    });
    this.wakeAt(next);
    return held;
  }

  /**
   * One more claim shortly after a NOTIFY: enqueueMail coalesces the NOTIFYs of Free mail, so
   * mail committed just after a notified one may have no wake-up of its own.
   */
  private trailingTimer: NodeJS.Timeout | undefined;
  private trailingWake(): void {
    if (this.trailingTimer || this.state !== 'running') return;
    this.trailingTimer = setTimeout(() => {
      this.trailingTimer = undefined;
      this.wake();
    }, TRAILING_WAKE_MS);
    this.trailingTimer.unref();
  }

  /** Wakes when the earliest retry this worker scheduled is due. */
  private wakeAt(at: Date): void {
    if (this.state !== 'running') return;
    const when = at.getTime();
    if (this.wakeTimer && this.wakeTimer.at <= when) return;
    if (this.wakeTimer) clearTimeout(this.wakeTimer.timer);
    const timer = setTimeout(
      () => {
        this.wakeTimer = undefined;
        this.wake();
      },
      Math.max(0, when - this.clock.now().getTime()) + 5,
    );
    timer.unref();
    this.wakeTimer = { at: when, timer };
  }

  /** Renews our leases, returns dead workers' rows, fails mails past the maximum age. */
  private async maintain(): Promise<void> {
    if (this.maintaining || this.state === 'stopped') return;
    this.maintaining = true;
    try {
      const now = this.clock.now();
      await extendLeases(this.db, {
        workerId: this.workerId,
        ids: [
          ...this.inFlight.keys(),
          ...this.ready.map((r) => r.id),
          ...this.sentQueue.map((o) => o.id),
          ...this.sentWriting,
        ],
        leaseUntil: new Date(now.getTime() + this.leaseMs),
      });
      if (this.state !== 'running') return;
      const reclaimed = await reclaimExpiredLeases(this.db, { now });
      if (reclaimed > 0)
        this.log('warn', `outbox: ${reclaimed} mail(s) returned to the queue after their worker stopped`);
      const expired = await expireOld(this.db, {
        now,
        maxAgeMs: this.maxAgeMs,
        label: formatDuration(this.maxAgeMs),
      });
      if (expired > 0)
        this.log(
          'warn',
          `outbox: ${expired} mail(s) failed after waiting longer than ${formatDuration(this.maxAgeMs)}`,
        );
      if (reclaimed > 0) this.wake();
    } catch (err) {
      this.log('error', `outbox: maintenance failed (${(err as Error).message})`);
    } finally {
      this.maintaining = false;
    }
  }

  private whenIdle(timeoutMs: number): Promise<void> {
    if (this.inFlight.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.idleWaiters.push(done);
    });
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
