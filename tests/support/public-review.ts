import type { BrowserContextOptions, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { BrowserHarness } from './browser.ts';
import type { TestServer } from './e2e-server.ts';

/** The helpers of the tests of a shared email's public page and its reviews. */
export function publicReviewHelpers(browser: BrowserHarness, server: () => TestServer) {
  return {
    /** The shared page, signed out, on `path` (one at a time: each call moves it). */
    async publicPage(path: string, options: BrowserContextOptions = {}) {
      const page = await browser.pageWith(server(), undefined, options);
      await page.goto(path);
      return page;
    },
    /** A review posted as a client would, without an account; it must be accepted. */
    async postReview(slug: string, body: object) {
      const res = await fetch(`${server().baseUrl}/api/email/public/${slug}/reviews`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    },
  };
}

/**
 * The review section loads when the reader scrolls near it (below the email). Scrolled to by the
 * section itself: its heading is a placeholder until the form's code has loaded, and the swap can
 * detach the element being scrolled to.
 */
export async function scrollToReviews(page: Page) {
  await page.locator('section[aria-labelledby="review-title"]').scrollIntoViewIfNeeded();
  await page.getByLabel('Your name').waitFor();
}
