import { PAYMENT_SYNC_ATTEMPTS, PAYMENT_SYNC_INTERVAL_MS } from '../../../shared/plans.ts';

/**
 * The payment return flow (docs/spec.md §4): up to 10 attempts, 1 second apart; each syncs billing,
 * refreshes the user, then fetches the current user. Resolves 'pro' as soon as the plan is Pro,
 * 'pending' after the last attempt without it. A failing step only costs that attempt.
 * The return from Checkout itself proves nothing: only what the server reports counts.
 */

export interface PaymentReturnSteps {
  sync: (signal: AbortSignal) => Promise<unknown>;
  refreshUser: () => Promise<unknown>;
  fetchMe: (signal: AbortSignal) => Promise<{ plan: string }>;
  wait?: (ms: number, signal: AbortSignal) => Promise<void>;
}

export interface PaymentReturnOptions {
  signal: AbortSignal;
  attempts?: number;
  intervalMs?: number;
  onAttempt?: (attempt: number) => void;
}

function abortableWait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export async function confirmUpgrade(
  steps: PaymentReturnSteps,
  options: PaymentReturnOptions,
): Promise<'pro' | 'pending'> {
  const { signal, attempts = PAYMENT_SYNC_ATTEMPTS, intervalMs = PAYMENT_SYNC_INTERVAL_MS } = options;
  const wait = steps.wait ?? abortableWait;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    signal.throwIfAborted();
    options.onAttempt?.(attempt);
    try {
      await steps.sync(signal);
    } catch {
      signal.throwIfAborted(); // a failed sync is retried by the next attempt
    }
    try {
      await steps.refreshUser();
      const me = await steps.fetchMe(signal);
      if (me.plan.toLowerCase() === 'pro') return 'pro';
    } catch {
      signal.throwIfAborted();
    }
    if (attempt < attempts) await wait(intervalMs, signal);
  }
  return 'pending';
}
