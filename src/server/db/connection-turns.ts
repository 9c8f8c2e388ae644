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

  function startNext(): void {
    while (running.size < slots) {
      const next = waiting.findIndex((w) => !running.has(w.key));
      if (next < 0) return;
      const [w] = waiting.splice(next, 1);
      running.add(w!.key);
      w!.start();
    }
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
        running.delete(key);
        startNext();
      }
    },
  };
}
