import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { createUser } from '../support/users.ts';
import { startAuthServer, storeToken, type AuthServer } from '../support/auth-browser.ts';
import { shot } from '../support/screenshots.ts';

/**
 * The account screens on a laptop and a 375px phone, light and dark: nothing overflows sideways,
 * nothing logs an error; with SHOTS_DIR set, a screenshot of each for a person to look at
 * (tests/support/screenshots.ts).
 */

const browser = setupBrowser();
let auth: AuthServer;

beforeAll(async () => {
  auth = await startAuthServer();
});
afterAll(async () => auth?.close());

const VIEWPORTS = {
  desktop: { width: 1280, height: 900 },
  phone: { width: 375, height: 812 },
} as const;

const PUBLIC_PAGES = [
  ['/signup', 'Create Your Account'],
  ['/signin', 'Welcome Back'],
  ['/forgot-password', 'Forgot Your Password?'],
  ['/reset-password?token=abc', 'Choose a New Password'],
  ['/reset-password', 'Invalid reset link'],
  ['/verify', 'Invalid verification link'],
] as const;

const APP_PAGES = [
  ['/app/account', 'Account', '[data-section="login-alerts"]'],
  ['/app/profile', 'Profile', '[data-testid="profile-email"]'],
  ['/app/about', 'About Proofmail', 'main p'],
] as const;

async function overflowX(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

describe('account screens render cleanly', () => {
  for (const [device, viewport] of Object.entries(VIEWPORTS)) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`${device}, ${colorScheme}`, async () => {
        const page = await browser.pageWith(auth.server, undefined, { viewport, colorScheme });
        const problems = watchProblems(page);
        for (const [url, title] of PUBLIC_PAGES) {
          await page.goto(url);
          await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
          if (url === '/signup') await page.locator('[data-captcha-phase="ready"]').waitFor();
          expect(await overflowX(page), `${url} overflows sideways`).toBeLessThanOrEqual(0);
          await shot(page, `auth-${device}-${colorScheme}${url.replace(/[/?=]/g, '_')}`);
        }
        const { token } = await createUser(auth.server.db, { verified: false });
        await storeToken(page, token);
        for (const [url, title, loaded] of APP_PAGES) {
          await page.goto(url);
          await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
          await page.locator(loaded).first().waitFor();
          expect(await overflowX(page), `${url} overflows sideways`).toBeLessThanOrEqual(0);
          await shot(page, `auth-${device}-${colorScheme}${url.replace(/[/?=]/g, '_')}`);
        }
        await page.getByRole('button', { name: 'Account menu' }).click();
        await page.getByRole('menu').waitFor();
        await shot(page, `auth-${device}-${colorScheme}-menu`);
        expect(problems.all()).toEqual([]);
      });
    }
  }
});
