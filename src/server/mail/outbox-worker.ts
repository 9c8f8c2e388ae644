import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { systemClock, type Clock } from '../clock.ts';
import type { Db } from '../db/database.ts';
import type { MailHandoff, MailReservation } from './handoff.ts';
import { startOutboxListener, type OutboxListener } from './outbox-listener.ts';
import {
  byQueueOrder,
  claimDue,
  expireOld,
  extendLeases,
  loadEmailContent,
  markFailed,
  markFinalDotAndSent,
  markRetry,
  markSent,
  markUnconfirmed,
  MAX_UNCERTAIN_ATTEMPTS,
  reclaimExpiredLeases,
  release,
  type EmailContent,
  type OutboxRow,
  type SentOutcome,
} from './outbox.repo.ts';
import { MAIL_PRIORITY } from './outbox.ts';
import type { DeliveryResult } from './smtp-outcome.ts';
import type { MailTransport } from './transport.ts';

/**
 * Delivers the outbox (docs/architecture.md §5, docs/decisions/0003-database-is-the-queue.md).
 * Each worker keeps up to `concurrency` mails in flight and never holds more than three times
 * that many leases (in flight, buffered in queue order, or delivered and not yet recorded). A
 * system or Pro mail enqueued behind a Free backlog is announced by NOTIFY with its priority;
 * a worker whose buffer is full trades its last buffered Free mail for it, so priority mail
 * overtakes the buffer without growing it (docs/decisions/0042-bounded-outbox-buffer.md). It wakes
 * on NOTIFY, on its own retry timers and on a slow poll; it renews its leases while it holds rows,
 * and any worker returns rows whose lease ran out (their worker died) to the queue.
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
  /**
   * How long a claim is valid without renewal; renewed every leaseMs/3 while held. It bounds how
   * long a dead worker's mail waits, not how long an SMTP attempt may take: renewal keeps the
   * lease for as long as the attempt runs (docs/decisions/0040-smtp-timeouts-rfc-5321.md).
   */
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
  leaseMs: 30_000,
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

/** The longest a delivered mail waits for the next final dot to carry its record (flushSent). */
const SENT_WRITE_DELAY_MS = 10;

/** Leases one worker may hold, per unit of concurrency. */
const BUFFER_ROUNDS = 3;

/** A claimed row and what it sends: the email's content (shared by its recipients) or its own. */
interface Claimed {
  row: OutboxRow;
  /** Null when the email row is gone (its owner's account was deleted). */
  content: { subject: string; html: string; text: string | null } | null;
}

interface InFlight {
  row: OutboxRow;
  abort: AbortController;
}

const byClaimOrder = (a: Claimed, b: Claimed) => byQueueOrder(a.row, b.row);

export class OutboxWorker implements MailHandoff {
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
   * Claimed but not started yet, in queue order. A small buffer (up to two rounds of work) keeps
   * every slot busy while the next claim is on its way; a system or Pro mail claimed later still
   * goes to its front.
   */
  private ready: Claimed[] = [];
  private readonly inFlight = new Map<string, InFlight>();
  /** Delivered, waiting to be recorded; written in batches, one statement per batch. */
  private sentQueue: SentOutcome[] = [];
  private sentWriting = new Set<string>();
  private flushing: Promise<void> | undefined;
  private sentTimer: NodeJS.Timeout | undefined;
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
  /** The best priority announced since the last claim, if it beats Free (system or Pro mail). */
  private urgent: number | undefined;
  /** Attempts about to send their final dot, recorded in batches before the dot goes out. */
  private dotQueue: { id: string; resolve: () => void; reject: (err: Error) => void }[] = [];
  private dotFlushing: Promise<void> | undefined;
  /** Places promised to sends of this process that are storing their mail (`reserve`). */
  private reserved = 0;

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

  /** Rows this worker holds a lease on: in flight, buffered, or delivered and not yet recorded. */
  get heldCount(): number {
    return (
      this.inFlight.size + this.ready.length + this.sentQueue.length + this.sentWriting.size + this.reserved
    );
  }

  /**
   * Room for `count` mails that a send of this process is about to store already claimed by this
   * worker (src/server/mail/handoff.ts), within the same bound as claims: never more than three
   * rounds of work held. Undefined when the worker is not running or has no room; the send then
   * queues its mail for any worker.
   */
  reserve(count: number): MailReservation | undefined {
    if (this.state !== 'running' || this.heldCount + count > this.capacity) return undefined;
    this.reserved += count;
    let open = true;
    const close = () => {
      if (!open) return false;
      open = false;
      this.reserved -= count;
      return true;
    };
    return {
      claim: { workerId: this.workerId, leaseUntil: new Date(this.clock.now().getTime() + this.leaseMs) },
      deliver: (rows, content) => {
        if (close()) this.adopt(rows, content);
      },
      cancel: () => {
        if (close()) this.wake(); // the room it held may be claimed now
      },
    };
  }

  /**
   * Takes rows stored already claimed by this worker, with their content, as if a claim had just
   * returned them. Stopping, it hands them back to the queue untried. A row whose lease ran out
   * meanwhile and was taken by another worker never goes out twice: its final dot is recorded only
   * while this worker holds it (recordFinalDot).
   */
  private adopt(rows: OutboxRow[], content: EmailContent): void {
    if (this.state !== 'running') {
      void release(this.db, { workerId: this.workerId, ids: rows.map((r) => r.id), attempted: false }).catch(
        () => undefined, // their leases expire
      );
      return;
    }
    this.buffer(rows.map((row): Claimed => ({ row, content })));
  }

  /** The most leases this worker holds at once: three rounds of work. */
  private get capacity(): number {
    return this.concurrency * BUFFER_ROUNDS;
  }

  /** Claimed rows into the buffer, in queue order, and onto free slots. */
  private buffer(claimed: Claimed[]): void {
    this.ready = [...this.ready, ...claimed].sort(byClaimOrder);
    this.dispatch();
  }

  start(): void {
    if (this.state !== 'new') throw new Error('An outbox worker can be started once');
    this.state = 'running';
    if (this.listenConnectionString) {
      this.listener = startOutboxListener({
        connectionString: this.listenConnectionString,
        onWake: (priority) => {
          if (priority !== undefined && priority < MAIL_PRIORITY.free)
            this.urgent = Math.min(this.urgent ?? priority, priority);
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
    const unstarted = this.ready.splice(0).map((c) => c.row.id);
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
    clearTimeout(this.sentTimer);
    this.sentTimer = undefined;
    await Promise.all([this.flushing, this.dotFlushing]);
    await this.flushSent({ now: true });
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
    // Claim when at most one round is buffered, up to three rounds held in all: claims come in
    // batches (each is a durable commit), and no slot waits for one. The bound holds for every
    // priority: an announced system or Pro mail is traded for the last buffered mail, never added.
    const lowWater = this.concurrency;
    const { capacity } = this;
    while (this.state === 'running') {
      this.wakeAgain = false;
      const urgent = this.urgent;
      this.urgent = undefined;
      if (Date.now() < this.dbErrorUntil) return;
      try {
        if (urgent !== undefined && this.heldCount >= capacity) await this.overtake(urgent);
        if (urgent === undefined && this.ready.length > lowWater) return;
        const limit = capacity - this.heldCount;
        if (limit <= 0) return;
        const got = await this.claim({ limit });
        if (got < limit) return; // nothing more due right now
      } catch (err) {
        // The database is unreachable: back off briefly; the poll brings us back.
        this.dbErrorUntil = Date.now() + Math.min(this.pollIntervalMs, 2_000);
        this.log('error', `outbox: could not claim mail (${(err as Error).message})`);
        return;
      }
    }
  }

  /**
   * A full buffer and a more urgent mail announced: hand the last buffered mail back (first, so
   * the bound is never exceeded) and claim one that goes before it. If another worker was faster,
   * the free place is refilled in queue order.
   */
  private async overtake(priority: number): Promise<void> {
    const last = this.ready[this.ready.length - 1];
    if (!last || last.row.priority <= priority) return;
    this.ready.pop();
    const released = await release(this.db, {
      workerId: this.workerId,
      ids: [last.row.id],
      attempted: false,
    }).catch((err: unknown) => {
      this.ready.push(last);
      throw err;
    });
    if (released === 0) this.log('warn', `outbox: lost the lease on ${last.row.id} while buffered`);
    await this.claim({ limit: 1, belowPriority: last.row.priority });
  }

  /** Claims up to `limit` rows, loads their content and buffers them; returns how many. */
  private async claim(args: { limit: number; belowPriority?: number }): Promise<number> {
    const now = this.clock.now();
    const rows = await claimDue(this.db, {
      workerId: this.workerId,
      limit: args.limit,
      now,
      leaseUntil: new Date(now.getTime() + this.leaseMs),
      belowPriority: args.belowPriority,
    });
    if (rows.length === 0) return 0;
    let contents: Awaited<ReturnType<typeof loadEmailContent>>;
    try {
      const emailIds = [...new Set(rows.flatMap((r) => (r.html === null && r.email_id ? [r.email_id] : [])))];
      contents = await loadEmailContent(this.db, emailIds);
    } catch (err) {
      // Claimed but not loadable now: hand them back untried rather than hold them.
      await release(this.db, { workerId: this.workerId, ids: rows.map((r) => r.id), attempted: false }).catch(
        () => undefined, // their leases expire
      );
      throw err;
    }
    const claimed = rows.map((row): Claimed => {
      if (row.html !== null && row.subject !== null)
        return { row, content: { subject: row.subject, html: row.html, text: row.text } };
      const email = row.email_id ? contents.get(row.email_id) : undefined;
      return { row, content: email ? { subject: email.subject, html: email.html, text: email.text } : null };
    });
    this.buffer(claimed);
    return rows.length;
  }

  private launch(claimed: Claimed): void {
    const { row } = claimed;
    const abort = new AbortController();
    this.inFlight.set(row.id, { row, abort });
    void this.deliver(claimed, abort.signal)
      .catch((err: unknown) => this.log('error', `outbox: delivery of ${row.id} crashed (${String(err)})`))
      .finally(() => {
        this.inFlight.delete(row.id);
        if (this.state === 'stopping' && !abort.signal.aborted) this.finishedWhileStopping++;
        if (this.inFlight.size === 0) this.notifyIdle();
        this.wake();
      });
  }

  private async deliver({ row, content }: Claimed, signal: AbortSignal): Promise<void> {
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
    if (!content) {
      await this.settle(row, {
        status: 'failed',
        code: null,
        message: 'The email was deleted with its account before it could be delivered',
        uncertain: false,
      });
      return;
    }
    const result = await this.transport.deliver(
      {
        messageId: row.message_id,
        to: row.to_addresses.join(', '),
        replyTo: row.reply_to,
        subject: content.subject,
        html: content.html,
        text: content.text,
        date: row.created_at,
      },
      { signal, beforeFinalDot: () => this.recordFinalDot(row.id) },
    );
    if (signal.aborted) return; // released at shutdown; the row is no longer ours
    if (result.status === 'sent') {
      // The slot is free as soon as the server said yes; the record follows in the next batch.
      this.sentQueue.push({ id: row.id, sentAt: this.clock.now() });
      void this.flushSent();
      return;
    }
    await this.settle(row, result);
  }

  /**
   * Resolves once the database knows this attempt is about to send its final dot (from then on a
   * lost answer may mean a delivered message); rejects if the lease is gone or the write failed,
   * and the attempt then stops without the dot. Batched: one statement for every attempt waiting.
   */
  private recordFinalDot(id: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.dotQueue.push({ id, resolve, reject });
      this.dotFlushing ??= (async () => {
        // The attempts that reach their dot in this turn of the event loop share a statement: a
        // microtask's wait let only those of one callback share it (0.64 statements per mail in
        // the mail-pipeline bench, 0.26–0.29 with the turn), for a wait of one turn.
        await new Promise((turn) => setImmediate(turn));
        while (this.dotQueue.length > 0) {
          const batch = this.dotQueue.splice(0);
          // Deliveries finished since the last write ride along: one statement for both.
          const sent = this.takeSent();
          try {
            const held = await this.retrying(() =>
              markFinalDotAndSent(this.db, {
                workerId: this.workerId,
                dotIds: batch.map((b) => b.id),
                outcomes: sent,
              }),
            );
            for (const b of batch)
              if (held.dots.has(b.id)) b.resolve();
              else b.reject(new Error('this worker no longer holds the mail'));
            this.sentWritten(sent, held.sent);
          } catch (err) {
            for (const b of batch)
              b.reject(new Error(`the attempt could not be recorded (${(err as Error).message})`));
            this.sentNotWritten(sent, err);
          } finally {
            for (const o of sent) this.sentWriting.delete(o.id);
          }
        }
      })().finally(() => {
        this.dotFlushing = undefined;
      });
    });
  }

  /**
   * Writes queued `sent` outcomes, one statement per batch; one batch at a time. While deliveries
   * are under way it waits up to SENT_WRITE_DELAY_MS first: the next attempt's final dot
   * (recordFinalDot) usually comes sooner and carries them in its statement, so a busy worker
   * writes one statement per mail instead of two. `now` (shutdown) writes at once.
   */
  private flushSent({ now = false }: { now?: boolean } = {}): Promise<void> {
    if (this.flushing) return this.flushing;
    if (this.sentQueue.length === 0) return Promise.resolve();
    if (!now && this.state === 'running' && this.inFlight.size > 0) {
      this.sentTimer ??= setTimeout(() => {
        this.sentTimer = undefined;
        void this.flushSent({ now: true });
      }, SENT_WRITE_DELAY_MS);
      return Promise.resolve();
    }
    clearTimeout(this.sentTimer);
    this.sentTimer = undefined;
    this.flushing = (async () => {
      while (this.sentQueue.length > 0) {
        const batch = this.takeSent();
        try {
          const written = await this.retrying(() =>
            markSent(this.db, { workerId: this.workerId, outcomes: batch }),
          );
          this.sentWritten(batch, written);
        } catch (err) {
          this.sentNotWritten(batch, err);
        } finally {
          for (const o of batch) this.sentWriting.delete(o.id);
        }
      }
    })().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  /** Up to 500 queued `sent` outcomes, moved to `sentWriting` (the caller deletes them after). */
  private takeSent(): SentOutcome[] {
    const batch = this.sentQueue.splice(0, 500);
    for (const o of batch) this.sentWriting.add(o.id);
    return batch;
  }

  private sentWritten(batch: SentOutcome[], written: Set<string>): void {
    const lost = batch.filter((o) => !written.has(o.id));
    if (lost.length > 0)
      this.log('warn', `outbox: lost the lease on ${lost.length} mail(s) before recording them as sent`);
  }

  private sentNotWritten(batch: SentOutcome[], err: unknown): void {
    if (batch.length === 0) return;
    // Their leases expire and they are redelivered, flagged: at least once, never lost.
    this.log('error', `outbox: could not record ${batch.length} sent mail(s) (${(err as Error).message})`);
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
    if (result.uncertain && row.uncertain_attempts + 1 >= MAX_UNCERTAIN_ATTEMPTS) {
      // Sent twice with no answer either time: a third copy would be a blind guess.
      this.log(
        'warn',
        `outbox: ${row.id} unconfirmed after ${row.uncertain_attempts + 1} unanswered attempts`,
      );
      return markUnconfirmed(this.db, { ...base, code: result.code, text: result.message });
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
          ...this.ready.map((c) => c.row.id),
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
