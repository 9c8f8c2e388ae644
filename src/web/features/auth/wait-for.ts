import { CAPTCHA_POLL_INTERVAL_MS, CAPTCHA_WAIT_TIMEOUT_MS } from '../../../shared/plans.ts';

/**
 * Polls `ready` until it is true (resolves true) or the time runs out (resolves false). Defaults
 * are the bot-challenge readiness wait of docs/spec.md §9: 30,000 ms, every 100 ms.
 */
export function waitFor(
  ready: () => boolean,
  {
    timeoutMs = CAPTCHA_WAIT_TIMEOUT_MS,
    intervalMs = CAPTCHA_POLL_INTERVAL_MS,
    signal,
  }: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {},
): Promise<boolean> {
  return new Promise((resolve) => {
    if (ready()) return resolve(true);
    const started = Date.now();
    const timer = globalThis.setInterval(() => {
      if (signal?.aborted) {
        globalThis.clearInterval(timer);
        resolve(false);
      } else if (ready()) {
        globalThis.clearInterval(timer);
        resolve(true);
      } else if (Date.now() - started >= timeoutMs) {
        globalThis.clearInterval(timer);
        resolve(false);
      }
    }, intervalMs);
  });
}
