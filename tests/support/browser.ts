import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type ConsoleMessage,
  type Dialog,
  type Page,
  type Request,
  type Response,
} from 'playwright-core';
import { afterAll, beforeAll, inject, onTestFinished } from 'vitest';
import { launchBrowser, plantSessionsFromCookie, sessionCookie, signIn } from './chromium.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's Chromium (e2e-global-setup.ts launches it once; test files connect to it). */
    chromiumEndpoint: string;
  }
}

/** Where screenshots of failed tests go. */
export const FAILURE_DIR = path.join(os.tmpdir(), 'proofmail-e2e-failures');

/** Defaults for every context: a laptop viewport, light system theme, UTC, no motion. */
export const DEFAULT_CONTEXT: BrowserContextOptions = {
  viewport: { width: 1280, height: 800 },
  locale: 'en-US',
  timezoneId: 'UTC',
  colorScheme: 'light',
  reducedMotion: 'reduce',
};

/** The run's Chromium when e2e-global-setup started one, else a browser of this file's own. */
async function connectBrowser(): Promise<Browser> {
  let endpoint: string | undefined;
  try {
    endpoint = inject('chromiumEndpoint');
  } catch {
    endpoint = undefined;
  }
  return endpoint ? chromium.connect(endpoint) : launchBrowser();
}

export interface BrowserHarness {
  /** The run's Chromium, connected in beforeAll. */
  readonly browser: Browser;
  /**
   * A fresh incognito context (own storage, cookies, cache), closed when the current test
   * ends. Call it inside a test. `baseURL` lets pages use relative paths: page.goto('/plan').
   */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A page in its own fresh context (see newContext). */
  newPage(options?: BrowserContextOptions): Promise<Page>;
  /**
   * A fresh context signed in as `user` on `server` (baseURL set to it), before any page loads.
   * Open pages with `context.newPage()` and `page.goto(path)`.
   */
  signedInContext(
    server: { baseUrl: string },
    user: { token: string },
    options?: BrowserContextOptions,
  ): Promise<BrowserContext>;
  /** A page in a fresh context signed in as `user` on `server` (see signedInContext). */
  signedInPage(
    server: { baseUrl: string },
    user: { token: string },
    options?: BrowserContextOptions,
  ): Promise<Page>;
  /**
   * A page that the file's tests share, navigated from test to test: a new page costs Chromium
   * about half a second of CPU more than a navigation in an open one (docs/architecture.md,
   * testing). One per server, whoever the user (`user` absent: signed out). Each call first
   * empties it (`emptyPage` below); the user's token is planted at the next page of the origin
   * (`plantSessionsFromCookie` in chromium.ts). Only for tests that need nothing else of a fresh
   * page (no init scripts or context options of their own; listeners they add with
   * `listenDuringTest` go when the test ends). It is set to `view`'s viewport and colour scheme,
   * or the file's, and to the file's reduced motion. Call it inside a test; a failing test leaves
   * a screenshot.
   */
  sharedPage(server: { baseUrl: string }, user?: { token: string }, view?: PageView): Promise<Page>;
  /**
   * A page on `server` for `user` (absent: signed out) with these options: the shared page when a
   * page can switch to them (viewport, colour scheme), else a page in a fresh context (a phone's
   * mobile viewport and touch are the context's).
   */
  pageWith(
    server: { baseUrl: string },
    user: { token: string } | undefined,
    options: BrowserContextOptions,
  ): Promise<Page>;
}

/** What a shared page is set to on each call; absent: the file's defaults. */
export type PageView = Pick<BrowserContextOptions, 'viewport' | 'colorScheme'>;

/**
 * Browser tests' access to the run's Chromium: call at the top of a test file (or describe
 * block). Every test gets fresh contexts (own storage, cookies, cache), except the pages of
 * `sharedPage`; each is closed when that test finishes, and a failing test first leaves a
 * full-page screenshot of each open page in FAILURE_DIR.
 */
export function setupBrowser(defaults: BrowserContextOptions = {}): BrowserHarness {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await connectBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A context with this file's defaults and the suite's timeouts. */
  async function openContext(options: BrowserContextOptions): Promise<BrowserContext> {
    const context = await harness.browser.newContext({ ...DEFAULT_CONTEXT, ...defaults, ...options });
    // The whole suite keeps both cores busy: a step that takes 15 s there is slow, not broken.
    context.setDefaultTimeout(30_000);
    context.setDefaultNavigationTimeout(40_000);
    return context;
  }

  const shared = new Map<string, SharedPage>();
  afterAll(async () => {
    for (const { context } of shared.values()) await context.close().catch(() => undefined);
  });

  const harness: BrowserHarness = {
    get browser() {
      if (!browser) throw new Error('The browser is not running yet (use it inside tests or hooks)');
      return browser;
    },
    async newContext(options = {}) {
      const context = await openContext(options);
      onTestFinished(async ({ task }) => {
        if (task.result?.state === 'fail') await screenshotPages(context, task.name);
        await context.close().catch(() => undefined);
      });
      return context;
    },
    async newPage(options = {}) {
      const context = await harness.newContext(options);
      return context.newPage();
    },
    async signedInContext(server, user, options = {}) {
      const context = await harness.newContext({ baseURL: server.baseUrl, ...options });
      await signIn(context, server.baseUrl, user.token);
      return context;
    },
    async signedInPage(server, user, options = {}) {
      const context = await harness.signedInContext(server, user, options);
      return context.newPage();
    },
    async sharedPage(server, user, view = {}) {
      let entry = shared.get(server.baseUrl);
      if (entry && !entry.page.isClosed()) {
        await emptyPage(entry, new URL(server.baseUrl).origin);
      } else {
        const context = await openContext({ baseURL: server.baseUrl });
        await plantSessionsFromCookie(context, server.baseUrl);
        entry = { context, page: await context.newPage() };
        shared.set(server.baseUrl, entry);
      }
      const { context, page } = entry;
      if (user) await context.addCookies([sessionCookie(server.baseUrl, user.token)]);
      const fileView = { ...DEFAULT_CONTEXT, ...defaults, ...view };
      if (fileView.viewport) await page.setViewportSize(fileView.viewport);
      // Reduced motion too: a test may have turned it off for the page (page.emulateMedia).
      await page.emulateMedia({
        colorScheme: fileView.colorScheme ?? null,
        reducedMotion: fileView.reducedMotion ?? null,
      });
      onTestFinished(async ({ task }) => {
        if (task.result?.state === 'fail') await screenshotPages(context, task.name);
      });
      return page;
    },
    async pageWith(server, user, options) {
      const { viewport, colorScheme, ...rest } = options;
      // Only what is given: an absent viewport or colour scheme is the file's, not the last test's.
      const view: PageView = {
        ...(viewport !== undefined && { viewport }),
        ...(colorScheme !== undefined && { colorScheme }),
      };
      if (Object.keys(rest).length === 0) return harness.sharedPage(server, user, view);
      return user
        ? harness.signedInPage(server, user, options)
        : harness.newPage({ baseURL: server.baseUrl, ...options });
    },
  };
  return harness;
}

interface SharedPage {
  context: BrowserContext;
  page: Page;
}

/**
 * Empties a shared page for the next test: the context's other tabs, its routes and its
 * context's, `origin`'s localStorage (and its sessionStorage and history state when the page is on
 * that origin), the cookies. Not the HTTP cache: a test that counts requests reaching a server
 * needs answers that are not cached, or a fresh context. Not the origin's sessionStorage when the
 * last test left the page on another origin (a payment page): the protocol clears a tab's
 * sessionStorage only through a frame of its origin ("Frame not found"). A test that must start
 * without what the app keeps there (a review link's unlock, the reviewer's name) gets a fresh
 * context. Not by loading an API answer of the origin to reach its storage: pages send COOP and
 * API answers do not, so the page would change renderer process twice, the cost a shared page saves.
 */
async function emptyPage({ context, page }: SharedPage, origin: string): Promise<void> {
  // Tabs the last test opened (a link with target=_blank) are not the next test's.
  for (const other of context.pages()) if (other !== page) await other.close().catch(() => undefined);
  // The one place routes are removed (docs/decisions/0097-routes-stay-registered.md): a request of
  // the last test's document that this leaves paused is dropped by the next test's first
  // navigation, as every test using a shared page starts with one.
  // eslint-disable-next-line no-restricted-syntax
  await page.unrouteAll({ behavior: 'ignoreErrors' });
  // eslint-disable-next-line no-restricted-syntax
  await context.unrouteAll({ behavior: 'ignoreErrors' });
  if (new URL(page.url()).origin === origin) {
    await page.evaluate(() => {
      // The last test's document lives on until the next test's first navigation, and its polls
      // (an email's delivery state, every 2 s) would reach the server without the storage emptied
      // under them: a 401 in the next test's problems. From here on it sends nothing.
      window.fetch = () => new Promise<globalThis.Response>(() => undefined);
      XMLHttpRequest.prototype.send = () => undefined;
      localStorage.clear();
      sessionStorage.clear();
      // Chromium keeps an entry's history state when the same address loads again (the router's
      // way back after a sign-in, src/web/app/require-session.tsx): not the next test's.
      history.replaceState(null, '');
    });
  } else {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.clearDataForOrigin', { origin, storageTypes: 'local_storage' });
    await cdp.detach();
  }
  await context.clearCookies();
}

async function screenshotPages(context: BrowserContext, testName: string): Promise<void> {
  fs.mkdirSync(FAILURE_DIR, { recursive: true });
  const slug = testName
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
  for (const [i, page] of context.pages().entries()) {
    const file = path.join(FAILURE_DIR, `${slug}-${i}.png`);
    try {
      await page.screenshot({ path: file, fullPage: true, timeout: 5000 });
      console.error(`[e2e] screenshot of the failed page (${page.url()}): ${file}`);
    } catch {
      // the page may already be gone; the assertion error is what matters
    }
  }
}

export interface PageProblems {
  /** console.error output, including CSP violations and resource load failures Chrome logs. */
  consoleErrors: string[];
  /** Uncaught exceptions in the page. */
  pageErrors: string[];
  /** Requests that never got a response (connection refused, blocked, …), except aborted navigations. */
  failedRequests: string[];
  /** Responses with status >= 400. */
  httpErrors: string[];
  /** Everything above, one line each, for `expect(problems.all()).toEqual([])`. */
  all(): string[];
}

export interface WatchOptions {
  /** Problems matching any of these are expected (e.g. a deliberate 401) and left out. */
  ignore?: RegExp[];
}

/** What a page's events carry, for the events tests listen to. */
interface PageEvents {
  console: ConsoleMessage;
  dialog: Dialog;
  pageerror: Error;
  request: Request;
  requestfailed: Request;
  requestfinished: Request;
  response: Response;
}

/**
 * `page.on(event, listener)` for the current test only: removed when the test ends, as a shared
 * page outlives it. Outside a test (a hook) the listener stays for the page's life.
 */
export function listenDuringTest<E extends keyof PageEvents>(
  page: Page,
  event: E,
  listener: (value: PageEvents[E]) => void,
): void {
  // Playwright types `on` and `off` once per event name; for these events the call is the same.
  const events = page as unknown as Record<
    'on' | 'off',
    (event: E, listener: (value: PageEvents[E]) => void) => void
  >;
  events.on(event, listener);
  try {
    onTestFinished(() => events.off(event, listener));
  } catch {
    // Not inside a test.
  }
}

/**
 * Records what went wrong on a page while a test drives it. Start watching before the first
 * goto; assert at the end: `expect(problems.all()).toEqual([])`.
 */
export function watchProblems(page: Page, options: WatchOptions = {}): PageProblems {
  const ignored = (text: string) => (options.ignore ?? []).some((re) => re.test(text));
  const problems: PageProblems = {
    consoleErrors: [],
    pageErrors: [],
    failedRequests: [],
    httpErrors: [],
    all: () => [
      ...problems.consoleErrors.map((t) => `console: ${t}`),
      ...problems.pageErrors.map((t) => `exception: ${t}`),
      ...problems.failedRequests.map((t) => `request failed: ${t}`),
      ...problems.httpErrors.map((t) => `http: ${t}`),
    ],
  };
  const onConsole = (msg: ConsoleMessage) => {
    if (msg.type() !== 'error') return;
    const where = msg.location().url;
    const text = where ? `${msg.text()} (${where})` : msg.text();
    if (!ignored(text)) problems.consoleErrors.push(text);
  };
  const onPageError = (err: Error) => {
    const text = err.stack ?? err.message;
    if (!ignored(text)) problems.pageErrors.push(text);
  };
  const onRequestFailed = (req: Request) => {
    const reason = req.failure()?.errorText ?? 'failed';
    // Leaving a page cancels its pending requests; that is not a fault.
    if (reason === 'net::ERR_ABORTED') return;
    const text = `${req.method()} ${req.url()} ${reason}`;
    if (!ignored(text)) problems.failedRequests.push(text);
  };
  const onResponse = (res: Response) => {
    if (res.status() < 400) return;
    const text = `${res.request().method()} ${res.url()} ${res.status()}`;
    if (!ignored(text)) problems.httpErrors.push(text);
  };
  listenDuringTest(page, 'console', onConsole);
  listenDuringTest(page, 'pageerror', onPageError);
  listenDuringTest(page, 'requestfailed', onRequestFailed);
  listenDuringTest(page, 'response', onResponse);
  return problems;
}

/**
 * What the page's own copies put on the clipboard. Every test file drives the run's one Chromium,
 * and a browser has one clipboard: a file running beside this one can copy between this page's
 * copy and its read. So a test reads what its page wrote, recorded here as `writeText` passes it on
 * (after the clipboard took it), not the shared clipboard. Call before the page navigates.
 */
export async function watchClipboard(page: Page): Promise<{ lastCopied(): Promise<string | undefined> }> {
  await page.addInitScript(() => {
    if (window.top !== window || !navigator.clipboard) return;
    const clipboard = navigator.clipboard;
    const write = clipboard.writeText.bind(clipboard);
    clipboard.writeText = async (text: string) => {
      await write(text);
      Object.assign(window, { __lastCopied: text });
    };
  });
  return {
    lastCopied: () => page.evaluate(() => (window as { __lastCopied?: string }).__lastCopied),
  };
}
