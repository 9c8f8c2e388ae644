import type { Page, Route } from 'playwright-core';

/** A route that can be switched off; it stays registered (see `intercept`). */
export interface Interception {
  /** From now on the page's requests for the URL go to the network. */
  off: () => void;
  /** How many requests for the URL the page has made since the route was added, on or off. */
  count: () => number;
}

/**
 * Sends the page's requests for `url` to `handler` until `off()` is called (or, with `times`, after
 * that many requests), then to the network. The route itself is never removed: removing a page's
 * last route turns Chromium's request interception off, and a request that starts in that moment
 * stays paused for good, with no answer and no error (docs/decisions/0097-routes-stay-registered.md).
 * Lint forbids `unroute` and `times` in the browser tests for that reason.
 */
export async function intercept(
  page: Page,
  url: string | RegExp,
  handler: (route: Route) => Promise<void> | void,
  options: { times?: number } = {},
): Promise<Interception> {
  let on = true;
  let seen = 0;
  await page.route(url, async (route) => {
    seen++;
    if (!on) return route.fallback();
    if (options.times !== undefined && seen >= options.times) on = false;
    await handler(route);
  });
  return { off: () => (on = false), count: () => seen };
}
