import type { Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { insertSharedEmail } from '../support/shared-email.ts';
import { scrollToReviews } from '../support/public-review.ts';
import { createUser, type TestUser } from '../support/users.ts';

/*
 * Emails sized by the viewport (docs/decisions/0045-preview-frame-same-origin-without-scripts.md and
 * 0120-renderer-as-the-preview-and-fair.md, amended 2026-11-28): `min-height: 100vh`, `50vh`, and
 * `html, body { height: 100% }` with a `<table height="100%">`. Growing the frame to such an email
 * grew the email with it: its footer stayed below the frame, and a share of the viewport ran the
 * frame to 100,000 px. The preview now shows it in an 800 px window that scrolls, as a mail client
 * does; the export is that window's picture, the whole email, and agrees with it.
 */

const browser = setupBrowser();
let server: TestServer;
let owner: TestUser;

const FRAME = 'iframe[data-testid="email-frame"]';

const EMAILS = {
  hero:
    '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">' +
    '<div id="hero" style="min-height:100vh;background:#fde;font:24px Arial">Hero section</div>' +
    '<div id="footer" style="background:#333;color:#fff;padding:20px;font:14px Arial">FOOTER after hero</div></body></html>',
  shares:
    '<style>html,body{margin:0}.h{min-height:100vh}.half{height:50vh;background:#333}</style>' +
    '<div class="h" id="hero">100vh</div><div class="half" id="footer">50vh</div>',
  bodyTable:
    '<!DOCTYPE html><html><head><style>html,body{height:100%;margin:0}</style></head><body>' +
    '<table id="hero" height="100%" width="100%" cellpadding="0" cellspacing="0" style="background:#fde"><tr><td>Main</td></tr></table>' +
    '<table id="footer" width="100%" cellpadding="0" cellspacing="0" style="background:#333;color:#fff"><tr><td style="height:60px">Footer</td></tr></table>' +
    '</body></html>',
};
const ids: Record<keyof typeof EMAILS, { id: string; slug: string }> = {} as never;

beforeAll(async () => {
  server = await startTestServer();
  owner = await createUser(server.db, { plan: 'pro' });
  for (const [name, html] of Object.entries(EMAILS) as Array<[keyof typeof EMAILS, string]>) {
    ids[name] = await insertSharedEmail(server, owner, { subject: `Viewport ${name}`, html });
  }
});
afterAll(async () => server?.close());

/** The frame and, inside it, the email's hero and footer, once the frame has settled. */
async function seen(page: Page) {
  await page.frameLocator(FRAME).locator('#footer').waitFor({ state: 'attached' });
  // Let the frame's measuring run (a ResizeObserver, then an animation frame) more than once.
  await page.waitForTimeout(300);
  return page.locator(FRAME).evaluate((f: HTMLIFrameElement) => {
    const doc = f.contentDocument!;
    const rect = (id: string) => doc.getElementById(id)!.getBoundingClientRect();
    return {
      frameHeight: f.clientHeight,
      viewport: f.contentWindow!.innerHeight,
      scrollHeight: doc.scrollingElement!.scrollHeight,
      hero: Math.round(rect('hero').height),
      footerTop: Math.round(rect('footer').top),
      footerBottom: Math.round(rect('footer').bottom),
    };
  });
}

describe('an email sized by the viewport', () => {
  it('shows whole in an 800 px window that scrolls, on the detail page and /s/, and the export is its picture', async () => {
    const page = await browser.sharedPage(server, owner, { viewport: { width: 1280, height: 900 } });
    for (const name of Object.keys(EMAILS) as Array<keyof typeof EMAILS>) {
      const { id, slug } = ids[name];
      const res = await fetch(`${server.baseUrl}/api/email/${id}/export.png?width=600`, {
        headers: owner.headers,
      });
      expect(res.status, name).toBe(200);
      const exported = PNG.sync.read(Buffer.from(await res.arrayBuffer()));
      for (const path of [`/app/email/${id}?view=600`, `/s/${slug}?view=600`]) {
        await page.goto(path);
        const shown = await seen(page);
        // The window the viewport units mean: 800 px, never grown after the email.
        expect([shown.frameHeight, shown.viewport], `${name} ${path}`).toEqual([800, 800]);
        expect(shown.hero, `${name} ${path}`).toBe(800);
        // The footer follows the hero, and the frame scrolls to it.
        expect(shown.footerTop, `${name} ${path}`).toBe(800);
        expect(shown.scrollHeight, `${name} ${path}`).toBe(shown.footerBottom);
        // The export is as tall as the email in that window, footer included.
        expect(Number(res.headers.get('x-render-height')), `${name} ${path}`).toBe(shown.scrollHeight);
      }
      expect(res.headers.get('x-render-truncated')).toBe('false');
      expect(exported.height).toBe(Number(res.headers.get('x-render-height')));
      // The footer's dark background is in the picture, under an 800 px hero.
      const at = (y: number) => {
        const i = (y * exported.width + 300) * 4;
        return [exported.data[i], exported.data[i + 1], exported.data[i + 2]];
      };
      expect(at(795), name).not.toEqual([51, 51, 51]);
      expect(at(exported.height - 2), name).toEqual([51, 51, 51]);
    }
  });

  it('pins a point of the email, not of the window: a pin on the footer, scrolled to, stays on the footer', async () => {
    const { id, slug } = ids.hero;
    const page = await browser.pageWith(server, undefined, { viewport: { width: 1280, height: 900 } });
    await page.goto(`/s/${slug}?view=600`);
    await seen(page);
    const frame = page.locator(FRAME);
    const scrollFrame = (top: number) =>
      frame.evaluate((f: HTMLIFrameElement, y) => f.contentWindow!.scrollTo(0, y), top);
    await scrollToReviews(page);
    await page.getByLabel('Your name').fill('Carol');
    await page.getByRole('radio', { name: 'Comment' }).click();
    await page.getByLabel('Comment', { exact: true }).fill('Footer text should be bigger');
    await page.getByRole('button', { name: 'Pin to the Email' }).click();
    await page.getByRole('application', { name: 'Pin position' }).waitFor();
    await frame.scrollIntoViewIfNeeded();
    await scrollFrame(10_000);
    // The footer's middle, in the page: where the frame is plus where the footer is in its window.
    const target = async () => {
      const box = (await frame.boundingBox())!;
      const at = await frame.evaluate((f: HTMLIFrameElement) => {
        const r = f.contentDocument!.getElementById('footer')!.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
      });
      return { x: box.x + at.x, y: box.y + at.y };
    };
    await expect.poll(async () => (await target()).y < (await frame.boundingBox())!.y + 800).toBe(true);
    const click = await target();
    await page.mouse.click(click.x, click.y);
    await page.getByTestId('pin-draft').waitFor();
    await page.getByRole('button', { name: 'Send Review' }).click();
    await page.getByRole('button', { name: 'Pin 1: Carol' }).waitFor();
    const { pin_y } = await server.db
      .selectFrom('email_reviews')
      .select('pin_y')
      .where('thread_id', '=', id)
      .executeTakeFirstOrThrow();
    // The footer is the email's last 54 of 854 px (800 of hero, then 20 + 14 + 20): past 0.93.
    expect(pin_y!).toBeGreaterThan(0.93);

    // The owner's page: at the window's top the pin is out of view; scrolled down, it is on the footer.
    const own = await browser.sharedPage(server, owner, { viewport: { width: 1280, height: 900 } });
    await own.goto(`/app/email/${id}?view=600`);
    await seen(own);
    const marker = own.getByRole('button', { name: 'Pin 1: Carol' });
    await expect.poll(() => marker.count()).toBe(0);
    await own.locator(FRAME).evaluate((f: HTMLIFrameElement) => f.contentWindow!.scrollTo(0, 10_000));
    await marker.waitFor();
    const under = await marker.evaluate((el) => {
      const r = el.getBoundingClientRect();
      const f = document.querySelector<HTMLIFrameElement>('iframe[data-testid="email-frame"]')!;
      const fr = f.getBoundingClientRect();
      const hit = f.contentDocument!.elementFromPoint(
        r.left + r.width / 2 - fr.left,
        r.top + r.height / 2 - fr.top,
      );
      return hit?.id ?? hit?.textContent ?? null;
    });
    expect(under).toBe('footer');
  });
});
