import fs from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type BrowserServer } from 'playwright-core';

/*
 * Chromium for browser tests and benchmarks (no test-runner imports here: benchmarks use it too).
 * Tests reach it through browser.ts.
 */

/** Debian's Chromium (playwright's own download is not available here); CHROMIUM_PATH overrides. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

function checkChromium(): void {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium not found at ${CHROMIUM_PATH} (apt-get install chromium, or set CHROMIUM_PATH)`,
    );
  }
}

/** A Chromium of this process's own (benchmarks; tests share the run's, see setupBrowser). */
export async function launchBrowser(): Promise<Browser> {
  checkChromium();
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: LAUNCH_ARGS });
}

/**
 * One Chromium for a whole test run, which test files reach through `wsEndpoint()` (on loopback
 * only). Starting a browser costs about a second of CPU; a run used to start one per file.
 */
export async function launchBrowserServer(): Promise<BrowserServer> {
  checkChromium();
  return chromium.launchServer({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: LAUNCH_ARGS,
    host: '127.0.0.1',
  });
}

/**
 * Browser storage in which `token` is the signed-in session on `baseUrl`, as the app keeps it
 * after a sign-in (localStorage `auth_token`, docs/decisions/0013-bearer-session-tokens.md). It is
 * there before the first page of a context loads, and only on that origin: another origin (a
 * payment page, a sandboxed preview frame) never sees it, and signing out removes it for good.
 */
export function signedInState(baseUrl: string, token: string): BrowserContextOptions['storageState'] {
  return {
    cookies: [],
    origins: [{ origin: new URL(baseUrl).origin, localStorage: [{ name: 'auth_token', value: token }] }],
  };
}
