import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenDuringTest, type PageProblems, setupBrowser, watchProblems } from '../support/browser.ts';
import { CHROMIUM_PATH } from '../support/chromium.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { startRecordingServer, type RecordingServer } from '../support/hostile-html.ts';
import {
  DARK_RULE_TEXT,
  DESKTOP_COLOUR,
  LIGHT_TEXT,
  MOBILE_COLOUR,
  responsiveEmail,
  startFontServer,
  TALL_EMAIL,
  webFontEmail,
  type FontServer,
} from '../support/preview-emails.ts';
import { insertSharedEmail } from '../support/shared-email.ts';
import { createUser, type TestUser } from '../support/users.ts';

/*
 * The one preview component on the detail page and /s/{slug} (docs/decisions/0045-…, 0046-…,
 * 0047-…): widths with the email's own breakpoints, full height, the two dark modes, images off,
 * web fonts, the view in the URL. Contexts run WITHOUT prefers-color-scheme emulation: emulation
 * overrides the iframe's color-scheme, which is the mechanism under test (docs/decisions/0047-…).
 */

const browser = setupBrowser();
let darkSystem: Browser; // Chromium with a dark operating-system theme
let server: TestServer;
let images: RecordingServer;
let canary: RecordingServer;
let fonts: FontServer;
let owner: TestUser;
const emails: Record<'responsive' | 'tall' | 'font', { id: string; slug: string }> = {} as never;

const FRAME = 'iframe[data-testid="email-frame"]';

beforeAll(async () => {
  images = await startRecordingServer('image');
  canary = await startRecordingServer('canary');
  fonts = await startFontServer();
  server = await startTestServer();
  owner = await createUser(server.db, { plan: 'pro' });
  const bodies = {
    responsive: responsiveEmail(images.origin),
    tall: TALL_EMAIL,
    font: webFontEmail(fonts.origin, canary.origin),
  };
  for (const [name, html] of Object.entries(bodies) as Array<[keyof typeof bodies, string]>) {
    emails[name] = await insertSharedEmail(server, owner, { subject: `Preview ${name}`, html });
  }
  darkSystem = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--force-dark-mode'],
  });
});
afterAll(async () => {
  await darkSystem?.close();
  await server?.close();
  await images?.close();
  await canary?.close();
  await fonts?.close();
});

interface OpenOptions {
  width?: number;
  appTheme?: 'light' | 'dark';
  system?: 'light' | 'dark';
  context?: BrowserContextOptions;
  /** The id of an element of the email to wait for (default: the responsive email's heading). */
  waitFor?: string;
}

/**
 * Opens `path` signed in, with no colour-scheme emulation; records console warnings too. On the
 * file's shared page, unless the options need a context of their own: another browser (a dark
 * system), context options, or an app theme in storage before the first script (an init script).
 */
async function open(
  path: string,
  options: OpenOptions = {},
): Promise<{ page: Page; problems: PageProblems; warnings: string[] }> {
  const viewport = { width: options.width ?? 1280, height: 900 };
  let page: Page;
  if (options.system === 'dark' || options.appTheme || options.context) {
    const contextOptions: BrowserContextOptions = {
      baseURL: server.baseUrl,
      viewport,
      colorScheme: null,
      ...options.context,
    };
    const context =
      options.system === 'dark'
        ? await darkSystem.newContext({
            locale: 'en-US',
            timezoneId: 'UTC',
            reducedMotion: 'reduce',
            ...contextOptions,
          })
        : await browser.newContext(contextOptions);
    if (options.system === 'dark') afterAllContexts.push(() => context.close());
    await context.addInitScript(
      ([token, theme]) => {
        localStorage.setItem('auth_token', token!);
        if (theme) localStorage.setItem('theme', theme);
      },
      [owner.token, options.appTheme ?? ''],
    );
    page = await context.newPage();
  } else {
    // colorScheme null: the page's emulation is turned off, as in a context created without it.
    page = await browser.sharedPage(server, owner, { viewport, colorScheme: null });
  }
  const problems = watchProblems(page);
  const warnings: string[] = [];
  listenDuringTest(page, 'console', (msg) => {
    // React Router's HydrateFallback warning is every-route.test.ts's to catch; everything else counts.
    if (msg.type() === 'warning' && !/HydrateFallback/.test(msg.text())) warnings.push(msg.text());
  });
  await page.goto(path);
  await waitForEmail(page, options.waitFor);
  return { page, problems, warnings };
}
const afterAllContexts: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const close of afterAllContexts) await close().catch(() => undefined);
});

/** Waits until the frame shows a parsed email document. */
async function waitForEmail(page: Page, id = 'layout') {
  await page.frameLocator(FRAME).locator(`#${id}`).waitFor({ state: 'attached' });
}

/** What the email sees and shows: its viewport width and computed colours. */
function inFrame(page: Page) {
  return page.locator(FRAME).evaluate((f: HTMLIFrameElement) => {
    const doc = f.contentDocument!;
    const style = (id: string) => (doc.getElementById(id) ? getComputedStyle(doc.getElementById(id)!) : null);
    const scroller = doc.scrollingElement!;
    return {
      innerWidth: doc.defaultView!.innerWidth,
      layout: style('layout')?.color,
      text: style('cell')?.color,
      card: style('card')?.backgroundColor,
      body: getComputedStyle(doc.body).backgroundColor,
      prefersDark: doc.defaultView!.matchMedia('(prefers-color-scheme: dark)').matches,
      scrollHeight: scroller.scrollHeight,
      clientHeight: scroller.clientHeight,
      frameHeight: f.getBoundingClientRect().height,
    };
  });
}

/** Relative luminance (WCAG) of an rgb() colour. */
function luminance(rgb: string): number {
  const [r, g, b] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
    const v = Number(c) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

const radio = (page: Page, group: string, name: string | RegExp) =>
  page.getByRole('radiogroup', { name: group }).getByRole('radio', { name });

function expectClean(problems: PageProblems, warnings: string[]) {
  expect(problems.all()).toEqual([]);
  expect(warnings).toEqual([]);
}

describe('widths', () => {
  it("Desktop shows the email's desktop layout and 375 its mobile one; the viewport is exactly the width", async () => {
    const { id } = emails.responsive;
    const { page, problems, warnings } = await open(`/app/email/${id}`);
    await page.getByRole('tabpanel').getByText('Preview responsive').first().waitFor();
    expect(await radio(page, 'Width', 'Desktop, 800 pixels').getAttribute('aria-checked')).toBe('true');
    let seen = await inFrame(page);
    expect(seen.innerWidth).toBe(800);
    expect(seen.layout).toBe(DESKTOP_COLOUR);
    expect((await page.locator(FRAME).boundingBox())!.width).toBe(800);

    await radio(page, 'Width', 'Mobile, 375 pixels').click();
    await expect.poll(async () => (await inFrame(page)).innerWidth).toBe(375);
    seen = await inFrame(page);
    expect(seen.layout).toBe(MOBILE_COLOUR);
    expect(new URL(page.url()).searchParams.get('view')).toBe('375');

    // The arrow keys move through the widths (a radio group).
    await radio(page, 'Width', 'Mobile, 375 pixels').focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(async () => (await inFrame(page)).innerWidth).toBe(600);
    expect((await inFrame(page)).layout).toBe(MOBILE_COLOUR); // max-width: 600px includes 600
    expect(await radio(page, 'Width', '600 pixels').getAttribute('aria-checked')).toBe('true');
    expectClean(problems, warnings);
  });

  it('on a phone, Desktop is scaled down to fit, never reflowed', async () => {
    const { id } = emails.responsive;
    const { page, problems, warnings } = await open(`/app/email/${id}?view=desktop`, { width: 375 });
    const seen = await inFrame(page);
    expect(seen.innerWidth).toBe(800);
    expect(seen.layout).toBe(DESKTOP_COLOUR);
    const box = (await page.locator(FRAME).boundingBox())!;
    expect(box.width).toBeLessThan(375);
    expect(await page.getByTestId('preview-size').innerText()).toMatch(/^800 × [\d,]+ px · shown at \d+%$/);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
    expectClean(problems, warnings);
  });

  it('any width by dragging the handle or with its arrow keys', async () => {
    const { id } = emails.responsive;
    const { page } = await open(`/app/email/${id}`);
    const handle = page.getByRole('separator', { name: 'Preview width' });
    expect(await handle.getAttribute('aria-valuenow')).toBe('800');
    await handle.focus();
    await page.keyboard.press('ArrowLeft');
    await expect.poll(async () => (await inFrame(page)).innerWidth).toBe(790);
    expect(new URL(page.url()).searchParams.get('view')).toBe('790');
    expect(
      await radio(page, 'Width', /pixels/).evaluateAll((els) =>
        els.map((e) => e.getAttribute('aria-checked')),
      ),
    ).toEqual(['false', 'false', 'false', 'false']);

    // The frame is centred: its edge follows the pointer when the width changes twice as much.
    const box = (await handle.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 50, box.y + box.height / 2, { steps: 5 });
    await page.mouse.move(box.x + box.width / 2 - 100, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    await expect.poll(async () => (await inFrame(page)).innerWidth).toBe(590);
    expect((await inFrame(page)).layout).toBe(MOBILE_COLOUR);
    expect(new URL(page.url()).searchParams.get('view')).toBe('590');
    expect(await page.getByTestId('preview-size').innerText()).toMatch(/^590 × /);
  });
});

describe('full height', () => {
  it('a 3,000 px email shows whole, with no inner scrollbar, on the detail page and /s/', async () => {
    const { id, slug } = emails.tall;
    for (const [path, width] of [
      [`/app/email/${id}`, 1280],
      [`/s/${slug}`, 1280],
      [`/s/${slug}`, 375],
    ] as const) {
      const { page, problems, warnings } = await open(path, { width, waitFor: 'end' });
      await expect
        .poll(async () => (await inFrame(page)).frameHeight, { message: path })
        .toBeGreaterThan(3000);
      const seen = await inFrame(page);
      expect(seen.scrollHeight, `${path} at ${width}: inner scroll`).toBeLessThanOrEqual(seen.clientHeight);
      const end = await page.locator(FRAME).evaluate((f: HTMLIFrameElement) => {
        const rect = f.contentDocument!.getElementById('end')!.getBoundingClientRect();
        return { bottom: rect.bottom, viewport: f.contentWindow!.innerHeight };
      });
      expect(end.bottom).toBeLessThanOrEqual(end.viewport);
      expectClean(problems, warnings);
    }
  });

  it('a short email gets the spec’s 800 px minimum', async () => {
    const { page } = await open(`/app/email/${emails.responsive.id}`);
    const seen = await inFrame(page);
    expect(seen.frameHeight).toBe(800);
    expect(seen.scrollHeight).toBeLessThanOrEqual(seen.clientHeight);
  });
});

describe('colours', () => {
  it("Dark applies the email's own dark rules whatever the system and app theme; Light never does", async () => {
    const { id } = emails.responsive;
    for (const system of ['light', 'dark'] as const) {
      for (const appTheme of ['light', 'dark'] as const) {
        const where = `system ${system}, app ${appTheme}`;
        const { page, problems, warnings } = await open(`/app/email/${id}`, { system, appTheme });
        // The settings took: the page itself sees the system theme and shows the app theme.
        expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches), where).toBe(
          system === 'dark',
        );
        expect(await page.evaluate(() => document.documentElement.classList.contains('dark')), where).toBe(
          appTheme === 'dark',
        );
        let seen = await inFrame(page);
        expect(seen.prefersDark, `${where}, Light`).toBe(false);
        expect(seen.text, `${where}, Light`).toBe(LIGHT_TEXT);

        await radio(page, 'Colours', "Dark, the email's own styles").click();
        await expect
          .poll(async () => (await inFrame(page)).text, { message: `${where}, Dark` })
          .toBe(DARK_RULE_TEXT);
        seen = await inFrame(page);
        expect(seen.prefersDark).toBe(true);
        expect(new URL(page.url()).searchParams.get('mode')).toBe('dark');
        await page
          .getByTestId('preview-note')
          .getByText("the email's own prefers-color-scheme: dark styles")
          .waitFor();
        expectClean(problems, warnings);
      }
    }
  });

  it('Forced dark turns a white bgcolor table dark and dark text light, labelled an approximation', async () => {
    const { page, problems, warnings } = await open(`/app/email/${emails.responsive.id}`);
    const before = await inFrame(page);
    expect(before.card).toBe('rgb(255, 255, 255)');
    await radio(page, 'Colours', 'Forced Dark, an approximation').click();
    await expect.poll(async () => luminance((await inFrame(page)).card ?? '')).toBeLessThan(0.02);
    const seen = await inFrame(page);
    expect(seen.prefersDark).toBe(false); // these clients do not apply the email's dark rules
    // Dark text turned light: readable on the darkened card (WCAG AAA, 7:1).
    const card = luminance(seen.card!);
    expect((luminance(seen.text!) + 0.05) / (card + 0.05)).toBeGreaterThan(7);
    expect(luminance(seen.body)).toBeLessThan(0.02);
    expect(await page.getByTestId('preview-note').innerText()).toContain('an approximation');
    expectClean(problems, warnings);
  });
});

describe('images off', () => {
  it('blocks every image and shows the alt text in its place', async () => {
    const { id } = emails.responsive;
    images.requests.length = 0;
    const on = await open(`/app/email/${id}`);
    await expect.poll(() => images.requests.filter((r) => r.url === '/hero.png').length).toBeGreaterThan(0);
    const heroOn = await on.page
      .locator(FRAME)
      .evaluate(
        (f: HTMLIFrameElement) => f.contentDocument!.getElementById('hero')!.getBoundingClientRect().width,
      );

    images.requests.length = 0;
    const { page, problems, warnings } = await open(`/app/email/${id}?images=off`);
    expect(await page.getByRole('button', { name: 'Images Off' }).getAttribute('aria-pressed')).toBe('true');
    const hero = await page.locator(FRAME).evaluate((f: HTMLIFrameElement) => {
      const img = f.contentDocument!.getElementById('hero') as HTMLImageElement;
      return { src: img.getAttribute('src'), alt: img.alt, width: img.getBoundingClientRect().width };
    });
    expect(hero.src).toBeNull();
    expect(hero.alt).toBe('Spring flowers on a kitchen table');
    // The alt text is laid out in the image's place: a box as wide as the words (the 1×1 image was 1 px).
    expect(heroOn).toBeLessThan(5);
    expect(hero.width).toBeGreaterThan(150);
    await page.waitForTimeout(300);
    expect(images.requests.filter((r) => r.url === '/hero.png')).toEqual([]);
    await page.getByTestId('preview-note').getByText('Images off').waitFor();
    expectClean(problems, warnings);
  });
});

describe('the view in the URL', () => {
  it('/s/{slug}?view=375&mode=dark&images=off opens the mobile dark view, signed out', async () => {
    const { slug } = emails.responsive;
    images.requests.length = 0;
    const page = await browser.sharedPage(server, undefined, { colorScheme: null });
    const problems = watchProblems(page);
    await page.goto(`/s/${slug}?view=375&mode=dark&images=off`);
    await page.getByRole('heading', { level: 1, name: 'Preview responsive' }).waitFor();
    await waitForEmail(page);
    expect(await radio(page, 'Width', 'Mobile, 375 pixels').getAttribute('aria-checked')).toBe('true');
    expect(await radio(page, 'Colours', "Dark, the email's own styles").getAttribute('aria-checked')).toBe(
      'true',
    );
    expect(await page.getByRole('button', { name: 'Images Off' }).getAttribute('aria-pressed')).toBe('true');
    const seen = await inFrame(page);
    expect(seen.innerWidth).toBe(375);
    expect(seen.layout).toBe(MOBILE_COLOUR);
    expect(seen.text).toBe(DARK_RULE_TEXT);
    expect(images.requests.filter((r) => r.url === '/hero.png')).toEqual([]);

    // A change rewrites the URL in place: Back still leaves the page.
    const entries = await page.evaluate(() => history.length);
    // The shared page keeps the earlier tests' entries; at Chromium's 50 a push would not show.
    expect(entries).toBeLessThan(50);
    await radio(page, 'Colours', 'Light').click();
    await expect.poll(() => new URL(page.url()).search).toBe('?view=375&images=off');
    expect(await page.evaluate(() => history.length)).toBe(entries);
    expect(problems.all()).toEqual([]);
  });
});

describe('web fonts', () => {
  it('loads https style sheets and their fonts, and drops hints and plain-http style sheets', async () => {
    const { id } = emails.font;
    canary.requests.length = 0;
    const { page, problems } = await open(`/app/email/${id}`, {
      context: { ignoreHTTPSErrors: true },
      waitFor: 'font',
    });
    await expect
      .poll(() =>
        page.locator(FRAME).evaluate(async (f: HTMLIFrameElement) => {
          const doc = f.contentDocument!;
          await doc.fonts.ready;
          return (
            doc.fonts.check('16px "Preview Test Serif"') && [...doc.fonts].some((x) => x.status === 'loaded')
          );
        }),
      )
      .toBe(true);
    expect(fonts.requests).toEqual(expect.arrayContaining(['/fonts.css', '/serif.ttf']));
    const links = await page
      .locator(FRAME)
      .evaluate((f: HTMLIFrameElement) =>
        [...f.contentDocument!.querySelectorAll('link')].map((l) => l.getAttribute('href')),
      );
    expect(links).toEqual([`${fonts.origin}/fonts.css`]);
    await page.waitForTimeout(300);
    expect(canary.requests).toEqual([]);
    expect(problems.all()).toEqual([]);
  });
});
