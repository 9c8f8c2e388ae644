import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserServer } from 'playwright-core';

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
 * Signs `context` in as the holder of `token` on `baseUrl`, as the app keeps a session after a
 * sign-in (localStorage `auth_token`, docs/decisions/0013-bearer-session-tokens.md). The token is
 * there before the first page of the origin runs a script, and only on that origin's top-level
 * pages: another origin (a payment page) and frames (the sandboxed email preview) never get it.
 * It is planted once per context (a marker beside it in the origin's storage says so), so signing
 * out removes it for good; emptying the storage removes the marker too, and the next page plants
 * it again.
 *
 * An init script rather than Playwright's `storageState`, which loads a hidden page of the origin
 * in every new context to write the storage: about 200 ms of Chromium's CPU per signed-in context.
 */
export async function signIn(context: BrowserContext, baseUrl: string, token: string): Promise<void> {
  await context.addInitScript(
    ({ origin, token }) => {
      if (window !== window.top || window.location.origin !== origin) return;
      const planted = 'proofmail-test:session-planted';
      if (localStorage.getItem(planted) !== null) return;
      localStorage.setItem('auth_token', token);
      localStorage.setItem(planted, '1');
    },
    { origin: new URL(baseUrl).origin, token },
  );
}

/** The cookie that carries a shared page's next session (`plantSessionsFromCookie`). */
const SESSION_COOKIE = 'proofmail-test-session';

/**
 * For a context whose pages change users from test to test (`sharedPage` in browser.ts): the
 * session comes from a cookie the test sets (`sessionCookie`). The first top-level page of the
 * origin that sees it moves it into localStorage `auth_token`, as a sign-in would, and deletes
 * it, so a sign-out stays signed out. An init script, like `signIn`; it reads a cookie because
 * an init script cannot be changed or removed once added.
 */
export async function plantSessionsFromCookie(context: BrowserContext, baseUrl: string): Promise<void> {
  await context.addInitScript(
    ({ origin, name }) => {
      if (window !== window.top || window.location.origin !== origin) return;
      const match = new RegExp(`(?:^|; )${name}=([^;]*)`).exec(document.cookie);
      if (!match) return;
      localStorage.setItem('auth_token', decodeURIComponent(match[1]!));
      document.cookie = `${name}=; Max-Age=0; path=/`;
    },
    { origin: new URL(baseUrl).origin, name: SESSION_COOKIE },
  );
}

/** The cookie that signs the next page of `baseUrl` in as the holder of `token` (see above). */
export function sessionCookie(baseUrl: string, token: string) {
  return { name: SESSION_COOKIE, value: encodeURIComponent(token), url: baseUrl };
}
