/**
 * The egress guard's in-process limits (docs/decisions/0060-egress-guard.md): a per-user rate (fixed
 * one-minute window) and two concurrency caps, per user and for the whole process. A request over
 * the rate is refused at once; one over a concurrency cap waits for a free slot (or its signal).
 */

class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly max: number) {}

  get busy(): boolean {
    return this.active > 0 || this.waiting.length > 0;
  }

  async acquire(signal?: AbortSignal): Promise<() => void> {
    if (this.active >= this.max) {
      await new Promise<void>((resolve, reject) => {
        const wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        const onAbort = () => {
          const i = this.waiting.indexOf(wake);
          if (i >= 0) this.waiting.splice(i, 1);
          reject(signal?.reason instanceof Error ? signal.reason : new Error('aborted'));
        };
        if (signal?.aborted) return onAbort();
        signal?.addEventListener('abort', onAbort, { once: true });
        this.waiting.push(wake);
      });
    } else {
      this.active++;
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `active` stays the same.
      if (next) next();
      else this.active--;
    };
  }
}

export interface EgressLimitOptions {
  /** Requests one user may start per minute (redirect hops included in their request). */
  perUserPerMinute: number;
  perUserConcurrency: number;
  globalConcurrency: number;
  now: () => number;
}

export class EgressLimits {
  private readonly global: Semaphore;
  private readonly users = new Map<string, Semaphore>();
  private readonly windows = new Map<string, { start: number; count: number }>();

  constructor(private readonly options: EgressLimitOptions) {
    this.global = new Semaphore(options.globalConcurrency);
  }

  /** Counts one request for `userId`; false when the user is over the per-minute rate. */
  take(userId: string): boolean {
    const now = this.options.now();
    const start = Math.floor(now / 60_000) * 60_000;
    const window = this.windows.get(userId);
    if (!window || window.start !== start) {
      // A new minute: forget every user's old window so the map never grows without bound.
      for (const [id, w] of this.windows) if (w.start !== start) this.windows.delete(id);
      this.windows.set(userId, { start, count: 1 });
      return this.options.perUserPerMinute >= 1;
    }
    window.count++;
    return window.count <= this.options.perUserPerMinute;
  }

  /** Waits for a slot of the user and one of the process; the returned function frees both. */
  async acquire(userId: string, signal?: AbortSignal): Promise<() => void> {
    let user = this.users.get(userId);
    if (!user) {
      user = new Semaphore(this.options.perUserConcurrency);
      this.users.set(userId, user);
    }
    const releaseUser = await user.acquire(signal);
    let releaseGlobal: () => void;
    try {
      releaseGlobal = await this.global.acquire(signal);
    } catch (err) {
      releaseUser();
      this.forgetIdle(userId, user);
      throw err;
    }
    return () => {
      releaseGlobal();
      releaseUser();
      this.forgetIdle(userId, user);
    };
  }

  private forgetIdle(userId: string, user: Semaphore): void {
    if (!user.busy && this.users.get(userId) === user) this.users.delete(userId);
  }
}
