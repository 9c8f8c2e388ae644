import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { setupBrowser } from '../support/browser.ts';
import { poll } from '../support/poll.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import {
  hostileCorpus,
  startRecordingServer,
  type HostileCase,
  type RecordingServer,
} from '../support/hostile-html.ts';
import { createUser, type TestUser } from '../support/users.ts';

/** Cases that must trip a detector when shown without the sandbox: the control run's floor. */
const MUST_TRIP = [
  'inline-script',
  'svg-onload',
  'meta-refresh',
  'iframe-src',
  'css-import',
  'link-stylesheet',
  'target-top-link',
];

/*
 * docs/architecture.md §1.7 and §6: user HTML never runs script, and never reads the session.
 * Every case of the hostile corpus is shown in the detail preview and on the public page
 * /s/{slug}, in Chromium, while signed in (a real auth_token in localStorage). The preview frame
 * shares our origin without scripts (docs/decisions/0045-preview-frame-same-origin-without-scripts.md),
 * so nothing may open a dialog, move the top page, open a tab other than a plain link's, reach
 * the canary server or our own origin from inside the frame, run script in the frame, or carry
 * the token anywhere but our own API.
 */

const browser = setupBrowser();
let server: TestServer;
let canary: RecordingServer;
let images: RecordingServer;
let owner: TestUser;
let corpus: HostileCase[];
const shared: Array<{ kase: HostileCase; id: string; slug: string }> = [];

beforeAll(async () => {
  canary = await startRecordingServer('canary');
  images = await startRecordingServer('image');
  server = await startTestServer();
  owner = await createUser(server.db, { plan: 'pro' });
  corpus = hostileCorpus({ canary: canary.origin, images: images.origin, app: server.baseUrl });
  for (const [i, kase] of corpus.entries()) {
    const { id } = await insertEmail(server.db, {
      userId: owner.user.id,
      to: 'client@example.com',
      subject: `Hostile ${kase.name}`,
      html: kase.html,
      inlineCss: false,
      createdAt: new Date(Date.now() - i * 1000),
    });
    // Shared through the real API, as the Share Link switch does.
    const res = await fetch(`${server.baseUrl}/api/email/${id}/share`, {
      method: 'POST',
      headers: owner.headers,
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { email: { publicSlug: string } };
    shared.push({ kase, id, slug: body.email.publicSlug });
  }
});
afterAll(async () => {
  await server?.close();
  await canary?.close();
  await images?.close();
});

/** Pages that show cases side by side: each case's harm window (below) is a wait, not work. */
const PAGES = 4;

/** Runs `fn` on every item, `PAGES` at a time; each lane gets its own index. */
async function inLanes<T>(items: T[], fn: (item: T, lane: number) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: PAGES }, async (_, lane) => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item, lane);
    }),
  );
}

interface Watch {
  dialogs: string[];
  /** Every URL any popup showed. */
  popups: string[];
  /** The popups themselves (see popupUrls). */
  popupPages: Page[];
  leaks: string[];
  /** Per page: the URLs its top frame showed, in order. */
  topNavigations: string[][];
  /** Requests to our own origin made from inside a frame (the email's). */
  appFromFrame: string[];
}

/**
 * A signed-in context (the session token in its storage before any page loads) with `PAGES`
 * pages, recording dialogs in any page, popups, the top-level navigations of each page, and
 * every request that carries the token to anywhere but our own API.
 */
async function signedInPages(): Promise<{ context: BrowserContext; pages: Page[]; watch: Watch }> {
  const context = await browser.signedInContext(server, owner);
  const watch: Watch = {
    dialogs: [],
    popups: [],
    popupPages: [],
    leaks: [],
    topNavigations: [],
    appFromFrame: [],
  };
  const onDialog = (p: Page) =>
    p.on('dialog', (d) => {
      watch.dialogs.push(`${d.type()}: ${d.message()} (${p.url()})`);
      void d.dismiss().catch(() => undefined);
    });
  context.on('request', (req) => {
    let inFrame = false;
    try {
      inFrame = req.frame().parentFrame() !== null;
    } catch {
      inFrame = false; // not a frame's request (e.g. a service worker's)
    }
    if (inFrame && req.url().startsWith(server.baseUrl))
      watch.appFromFrame.push(`${req.method()} ${req.url()}`);
    if (req.url().startsWith(`${server.baseUrl}/api/`)) return; // our API is where the token belongs
    const everything = [req.url(), JSON.stringify(req.headers()), req.postData() ?? ''].join('\n');
    if (everything.includes(owner.token)) watch.leaks.push(`${req.method()} ${req.url()}`);
  });
  const pages: Page[] = [];
  for (let i = 0; i < PAGES; i++) {
    const page = await context.newPage();
    onDialog(page);
    const navigations: string[] = [];
    watch.topNavigations.push(navigations);
    page.on('framenavigated', (f) => {
      // The router's own replaceState on start reports the same URL again; count URLs, not events.
      if (f === page.mainFrame() && navigations.at(-1) !== f.url()) navigations.push(f.url());
    });
    pages.push(page);
  }
  // Every later page is a popup (a new tab opened from an email).
  context.on('page', (p) => {
    onDialog(p);
    watch.popupPages.push(p);
    watch.popups.push(p.url());
    p.on('framenavigated', (f) => {
      if (f === p.mainFrame()) watch.popups.push(f.url());
    });
  });
  return { context, pages, watch };
}

const frameSelector = 'iframe[data-testid="email-frame"]';

/**
 * Clicks `selector` inside the email frame until the click really lands there. Chromium gives a
 * frame of another origin a process of its own, and for a moment after it paints, input still goes
 * to the page around it: a click then does nothing at all, and a check that nothing bad happened
 * would pass without having tested anything. A click has landed when it focused something in the
 * frame's fresh document or left a :hover element there, or, for a frame of our own origin (one
 * process with the page, so nothing to route), when the page sees the pointer over the frame.
 * The last is needed: measured in the preview frame (same origin, no scripts, no forms), a click
 * on a button or on MathML leaves neither focus nor any :hover inside it.
 */
async function clickInFrame(page: Page, selector: string): Promise<void> {
  const target = page.frameLocator(frameSelector).locator(selector).first();
  await expect
    .poll(
      async () => {
        await target.click();
        const inside = await target.evaluate((el) => {
          const focused = el.ownerDocument.activeElement;
          return (
            (focused !== null && focused !== el.ownerDocument.body) ||
            el.ownerDocument.querySelector(':hover') !== null
          );
        });
        if (inside) return true;
        return page
          .locator(frameSelector)
          .evaluate((f: HTMLIFrameElement) => f.contentDocument !== null && f.matches(':hover'));
      },
      { timeout: 30_000, interval: 100, message: `a click on ${selector} lands in the frame` },
    )
    .toBe(true);
}

/** Shows one case on `path`, clicks what it asks for, and checks the page. */
async function exercise(page: Page, path: string, kase: HostileCase, heading: string) {
  const url = `${server.baseUrl}${path}`;
  await page.goto(path);
  await page.getByRole('heading', { level: 1, name: heading, exact: true }).waitFor();
  await page.locator(frameSelector).waitFor();
  // The tracer image proves the email was really rendered in this frame.
  await expect
    .poll(() => images.requests.filter((r) => r.url === `/seen/${kase.name}.png`).length, { timeout: 10_000 })
    .toBeGreaterThan(0);
  for (const selector of kase.click ?? []) await clickInFrame(page, selector);
  // Meta refreshes fire right after load; give them (and any click) a moment to do harm.
  await page.waitForTimeout(600);
  expect(page.url(), `${kase.name}: the top page moved`).toBe(url);
  const pwned = await page
    .frameLocator(frameSelector)
    .locator('html[data-pwned]')
    .count()
    .catch(() => 0);
  expect(pwned, `${kase.name}: script ran inside the frame`).toBe(0);
}

/** The distinct URLs popups showed, once each has loaded (a click near the end may still be opening one). */
async function popupUrls(watch: Watch): Promise<string[]> {
  await Promise.all(watch.popupPages.map((p) => p.waitForLoadState('load').catch(() => undefined)));
  return [...new Set(watch.popups.filter((u) => u !== 'about:blank'))];
}

function expectNothingEscaped(watch: Watch, where: string) {
  expect(
    canary.requests.map((r) => `${r.method} ${r.url}`),
    `${where}: requests that reached the canary`,
  ).toEqual([]);
  expect(watch.dialogs, `${where}: dialogs`).toEqual([]);
  expect(watch.leaks, `${where}: requests carrying the session token`).toEqual([]);
  expect(watch.appFromFrame, `${where}: requests to our origin from inside the email`).toEqual([]);
}

describe('hostile HTML is inert wherever an email is shown', () => {
  it('the corpus has at least 30 cases, all of them distinct', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(30);
    expect(new Set(corpus.map((k) => k.name)).size).toBe(corpus.length);
  });

  it('in the detail preview (/app/email/{id}), signed in', { timeout: 300_000 }, async () => {
    const { pages, watch } = await signedInPages();
    const expectedNavs: string[][] = pages.map(() => []);
    await inLanes(shared, async ({ kase, id }, lane) => {
      const page = pages[lane]!;
      await exercise(page, `/app/email/${id}`, kase, `Hostile ${kase.name}`);
      expectedNavs[lane]!.push(`${server.baseUrl}/app/email/${id}`);
      // The page is still our signed-in app (the token is still there, the header still renders).
      expect(await page.evaluate(() => localStorage.getItem('auth_token'))).toBe(owner.token);
    });
    for (const page of pages) await page.getByRole('button', { name: 'Account menu' }).waitFor();
    expect(watch.topNavigations).toEqual(expectedNavs);
    expectNothingEscaped(watch, 'detail');
    // The only new tab is the plain link the test clicked: links open in a new tab (base target).
    expect(await popupUrls(watch)).toEqual([`${images.origin}/ping-target`]);
  });

  it('on the public page (/s/{slug}), signed in', { timeout: 300_000 }, async () => {
    const { pages, watch } = await signedInPages();
    const expectedNavs: string[][] = pages.map(() => []);
    images.requests.length = 0;
    await inLanes(shared, async ({ kase, slug }, lane) => {
      await exercise(pages[lane]!, `/s/${slug}`, kase, `Hostile ${kase.name}`);
      expectedNavs[lane]!.push(`${server.baseUrl}/s/${slug}`);
    });
    const referers = images.requests.map((r) => r.headers.referer ?? '').filter(Boolean);
    expect(watch.topNavigations).toEqual(expectedNavs);
    expectNothingEscaped(watch, 'public page');
    expect(await popupUrls(watch)).toEqual([`${images.origin}/ping-target`]);
    // Remote images never learn the share link: no Referer from our pages (a popup's own favicon
    // request names the popup, which is fine).
    expect(referers.filter((r) => r.startsWith(server.baseUrl))).toEqual([]);
  });

  it(
    'the same corpus, shown WITHOUT the sandbox, does trip the detectors (so the checks above can fail)',
    { timeout: 180_000 },
    async () => {
      const context = await browser.newContext();
      const tripped = new Set<string>();
      let dialogs = 0;
      await inLanes(corpus, async (kase) => {
        const page = await context.newPage();
        page.on('dialog', (d) => {
          dialogs++;
          tripped.add(kase.name);
          void d.dismiss().catch(() => undefined);
        });
        // A case that must trip gets longer to load and click on a busy machine: a page that did
        // not load, or a click that did not land, proves nothing.
        const mustTrip = MUST_TRIP.includes(kase.name);
        await page
          .setContent(kase.html, { waitUntil: 'load', timeout: mustTrip ? 30_000 : 10_000 })
          .catch(() => undefined);
        const clickMs = mustTrip ? 15_000 : 2000;
        for (const selector of kase.click ?? []) {
          await page
            .locator(selector)
            .first()
            .click({ timeout: clickMs, noWaitAfter: true })
            .catch(() => undefined);
        }
        await page.waitForTimeout(300);
        const reached = () => canary.requests.some((r) => r.url.startsWith(`/${kase.name}/`));
        // A case that must trip may reach the canary later on a busy machine (a navigation's
        // request can take over a second): wait for it a little longer.
        if (mustTrip && !reached() && !tripped.has(kase.name))
          await poll(reached, { timeoutMs: 3000, intervalMs: 100 }).catch(() => false);
        if (reached()) tripped.add(kase.name);
        if (
          await page
            .locator('html[data-pwned]')
            .count()
            .catch(() => 0)
        )
          tripped.add(kase.name);
        await page.close();
      });
      canary.requests.length = 0;
      images.requests.length = 0;
      console.log(
        `[hostile] unsandboxed, ${tripped.size}/${corpus.length} cases tripped a detector; not: ${corpus
          .map((k) => k.name)
          .filter((n) => !tripped.has(n))
          .join(', ')}`,
      );
      expect(dialogs).toBeGreaterThan(0);
      for (const name of MUST_TRIP) {
        expect(tripped, `unsandboxed ${name} should have tripped`).toContain(name);
      }
      expect(tripped.size, `tripped: ${[...tripped].join(', ')}`).toBeGreaterThanOrEqual(25);
    },
  );
});
