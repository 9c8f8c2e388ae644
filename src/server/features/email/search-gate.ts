import { tooManyRequests } from '../../http/errors.ts';

/** A user's searches that may wait behind their running one before more are turned away. */
export const MAX_WAITING_SEARCHES = 4;

export const TOO_MANY_SEARCHES = 'Too many searches at once: wait for your last search to finish.';

export interface SearchGate {
  /** Runs `work` when `owner` has no other search running and the process has a slot free. */
  run<T>(owner: string, work: () => Promise<T>): Promise<T>;
}

/**
 * History searches take turns (docs/decisions/0126-history-search-bounded.md). A search reads
 * HTML, and crafted HTML can make one read take seconds; each holds a database connection while it
 * runs. So each user runs one search at a time, the process at most `slots` at once, leaving the
 * rest of the pool to everyone's other requests; a user's searches wait their turn in order, and
 * with `maxWaiting` already waiting the next is turned away (429). Waiting is bounded because every
 * search is (its statement timeout, src/server/features/email/email.repo.ts).
 */
export function searchGate({
  slots,
  maxWaiting = MAX_WAITING_SEARCHES,
}: {
  slots: number;
  maxWaiting?: number;
}): SearchGate {
  const running = new Set<string>();
  const waiting: { owner: string; start: () => void }[] = [];

  function startNext(): void {
    while (running.size < slots) {
      const next = waiting.findIndex((w) => !running.has(w.owner));
      if (next < 0) return;
      const [w] = waiting.splice(next, 1);
      running.add(w!.owner);
      w!.start();
    }
  }

  return {
    async run(owner, work) {
      if (waiting.filter((w) => w.owner === owner).length >= maxWaiting)
        throw tooManyRequests(TOO_MANY_SEARCHES, 'too_many_searches', 1);
      await new Promise<void>((start) => {
        waiting.push({ owner, start });
        startNext();
      });
      try {
        return await work();
      } finally {
        running.delete(owner);
        startNext();
      }
    },
  };
}
