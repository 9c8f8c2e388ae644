/** A user's turns of one kind that may wait behind their running one before more are turned away. */
export const MAX_WAITING_TURNS = 4;

export interface ConnectionTurns {
  /**
   * Runs `work` when `key` (a kind of work and its user, e.g. `search:<user id>`) has no other
   * turn running and the process has a slot free; with MAX_WAITING_TURNS of `key` already waiting
   * it throws `full()` instead.
   */
  run<T>(key: string, work: () => Promise<T>, full: () => Error): Promise<T>;
}

/**
 * Work that may hold a database connection for seconds takes turns
 * (docs/decisions/0126-history-search-bounded.md): a history search (crafted HTML can make one
 * slow) and a billing call (it may wait for Stripe while it holds a connection under the user's billing lock). Each key runs one
 * at a time, in order, and the process at most `slots` at once, so such work never holds the
 * connections everyone's sends, sign-ins and pages need. Waiting is bounded because each turn is
 * (a statement timeout, Stripe's client timeout).
 */
export function connectionTurns({
  slots,
  maxWaiting = MAX_WAITING_TURNS,
}: {
  slots: number;
  maxWaiting?: number;
}): ConnectionTurns {
  const running = new Set<string>();
  const waiting: { key: string; start: () => void }[] = [];
  /** When each key with a turn waiting or running last had one started (a count of starts). */
  const lastStart = new Map<string, number>();
  let starts = 0;

  /**
   * Fair between keys: a free slot goes to the waiting key whose last turn started longest ago (a
   * key that has had none first), then in order of arrival. A user keeping four searches waiting
   * does not hold a newcomer behind all four.
   */
  function startNext(): void {
    while (running.size < slots) {
      let next = -1;
      for (let i = 0; i < waiting.length; i++) {
        const key = waiting[i]!.key;
        if (running.has(key)) continue;
        if (next < 0 || (lastStart.get(key) ?? 0) < (lastStart.get(waiting[next]!.key) ?? 0)) next = i;
      }
      if (next < 0) return;
      const [w] = waiting.splice(next, 1);
      running.add(w!.key);
      lastStart.set(w!.key, ++starts);
      w!.start();
    }
  }

  function finish(key: string): void {
    running.delete(key);
    if (!waiting.some((w) => w.key === key)) lastStart.delete(key);
    startNext();
  }

  return {
    async run(key, work, full) {
      if (waiting.filter((w) => w.key === key).length >= maxWaiting) throw full();
      await new Promise<void>((start) => {
        waiting.push({ key, start });
        startNext();
      });
      try {
        return await work();
      } finally {
        finish(key);
      }
    },
  };
}
