import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertCaughtMail } from '../../src/server/mail/caught-mail.repo.ts';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { shot } from '../support/screenshots.ts';
import { insertSharedEmail } from '../support/shared-email.ts';
import { createUser, type TestUser } from '../support/users.ts';

/*
 * The document of the preview frame, wherever an email is shown (composer, detail page, /s/{slug},
 * the dev mailbox), docs/decisions/0119-preview-frame-utf-8-and-unshadowed.md:
 * - it is decoded as UTF-8, the charset the message is sent in, whatever charset the email's own
 *   markup declares (a <meta charset> or an http-equiv Content-Type);
 * - the email's markup cannot shadow what the app uses on that document: with elements named
 *   addEventListener, URL, querySelector… (or a form's inputs named closest, scrollIntoView), the
 *   frame is still measured, its links still open in a new tab, and its anchors still scroll.
 */

const browser = setupBrowser();
let server: TestServer;
let owner: TestUser;

const FRAME = 'iframe[data-testid="email-frame"]';
const WORDS = 'Café ü € 😀 — “quotes”';

/** Emails that declare a charset other than the UTF-8 they are sent in, as templates often do. */
const DECLARING: Record<'meta' | 'http-equiv', string> = {
  meta: `<!DOCTYPE html><html><head><meta charset="windows-1252"><title>Menu</title></head><body><h1 id="words">${WORDS}</h1></body></html>`,
  'http-equiv': `<html><head><meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1"></head><body><h1 id="words">${WORDS}</h1></body></html>`,
};

/** Names of what the app reads on the email's document, each given to an element of the email. */
const SHADOWING_NAMES = [
  'addEventListener',
  'removeEventListener',
  'querySelector',
  'getElementById',
  'getElementsByName',
  'URL',
  'readyState',
  'defaultView',
  'documentElement',
  'scrollingElement',
  'body',
  'fonts',
  'baseURI',
  'innerHeight',
];

function shadowingEmail(app: string): string {
  const imgs = SHADOWING_NAMES.map((name) => `<img name="${name}" alt="">`).join('');
  return `<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0;font:16px Arial,sans-serif">
${imgs}
<p style="padding:16px"><a id="plain" href="${app}/terms">Our terms</a> ·
<a id="self" href="${app}/privacy" target="_self">Privacy, in this frame</a> ·
<a id="jump" href="#bottom">To the end</a></p>
<div style="height:2400px;background:linear-gradient(#fff,#dbeafe)"></div>
<form name="bottom" id="bottom-form" style="padding:24px"><input name="closest"><input name="scrollIntoView"><input name="getAttribute"></form>
<p id="end" style="margin:0;padding:16px">The end</p>
</body></html>`;
}

const emails: Record<'meta' | 'http-equiv' | 'shadowing', { id: string; slug: string }> = {} as never;

beforeAll(async () => {
  // The dev mailbox answers on a loopback PUBLIC_URL while the catcher runs (docs/decisions/0029-…).
  server = await startTestServer({ deps: { mailCatcher: true } });
  owner = await createUser(server.db, { plan: 'pro' });
  const bodies = { ...DECLARING, shadowing: shadowingEmail(server.baseUrl) };
  for (const [name, html] of Object.entries(bodies) as Array<[keyof typeof bodies, string]>) {
    emails[name] = await insertSharedEmail(server, owner, { subject: `Frame ${name}`, html });
  }
});
afterAll(async () => server?.close());

/** The frame document's encoding and the text of the email's heading, once it shows. */
async function decoded(page: Page): Promise<{ charset: string; words: string }> {
  await page.frameLocator(FRAME).locator('#words').waitFor({ state: 'attached' });
  return page.locator(FRAME).evaluate((f: HTMLIFrameElement) => {
    const doc = f.contentDocument!;
    return { charset: doc.characterSet, words: doc.getElementById('words')!.textContent ?? '' };
  });
}

describe('the frame decodes the email as UTF-8, as it is sent', () => {
  it('on /s/{slug}, signed out, and on the detail page, whatever charset the email declares', async () => {
    for (const kind of ['meta', 'http-equiv'] as const) {
      const { id, slug } = emails[kind];
      for (const [path, user] of [
        [`/s/${slug}`, undefined],
        [`/app/email/${id}`, owner],
      ] as const) {
        const page = await browser.sharedPage(server, user);
        const problems = watchProblems(page);
        await page.goto(path);
        await page.getByRole('heading', { level: 1, name: `Frame ${kind}` }).waitFor();
        expect(await decoded(page), `${kind} on ${path}`).toEqual({ charset: 'UTF-8', words: WORDS });
        expect(problems.all()).toEqual([]);
      }
    }
  });

  it('in the composer’s live preview', async () => {
    const page = await browser.sharedPage(server, owner);
    const problems = watchProblems(page);
    await page.goto('/app/send');
    await page.getByRole('heading', { level: 1, name: 'Send Test Email' }).waitFor();
    await page.locator('.cm-content').click();
    await page.keyboard.insertText(DECLARING.meta);
    expect(await decoded(page)).toEqual({ charset: 'UTF-8', words: WORDS });
    await shot(page.locator(FRAME), 'preview-frame-windows-1252-composer');
    expect(problems.all()).toEqual([]);
  });

  it('in the dev mailbox', async () => {
    const id = await insertCaughtMail(server.db, {
      messageId: '<charset@proofmail.test>',
      envelopeFrom: 'noreply@proofmail.test',
      from: 'Proofmail <noreply@proofmail.test>',
      to: ['client@example.com'],
      subject: 'Caught with a charset',
      html: DECLARING['http-equiv'],
      text: WORDS,
      headers: [],
      size: 400,
      receivedAt: new Date(),
    });
    const page = await browser.sharedPage(server);
    const problems = watchProblems(page);
    await page.goto(`/dev/mailbox?id=${id}`);
    await page.getByRole('heading', { level: 1, name: 'Local Mailbox' }).waitFor();
    expect(await decoded(page)).toEqual({ charset: 'UTF-8', words: WORDS });
    expect(problems.all()).toEqual([]);
  });
});

describe('the email’s names shadow nothing the app uses on its document', () => {
  it('the frame is measured, links open in a new tab, and anchors scroll the page', async () => {
    const { slug } = emails.shadowing;
    const page = await browser.sharedPage(server, undefined, { viewport: { width: 1280, height: 800 } });
    const problems = watchProblems(page);
    const path = `/s/${slug}`;
    await page.goto(path);
    await page.getByRole('heading', { level: 1, name: 'Frame shadowing' }).waitFor();
    const frame = page.frameLocator(FRAME);
    await frame.locator('#end').waitFor({ state: 'attached' });
    const shadowed = await page.locator(FRAME).evaluate((f: HTMLIFrameElement, list) => {
      const doc = f.contentDocument! as unknown as Record<string, unknown>;
      return {
        onDocument: list.filter((name) => (doc[name] as Element | undefined)?.localName === 'img'),
        // The window's own properties come before its named elements.
        innerHeight: typeof f.contentWindow!.innerHeight,
      };
    }, SHADOWING_NAMES);
    // The markup does shadow every one of them on the document (the app reads innerHeight on the window).
    expect(shadowed).toEqual({ onDocument: SHADOWING_NAMES, innerHeight: 'number' });

    // Measured: the whole email shows, with no inner scrollbar.
    await expect
      .poll(() => page.locator(FRAME).evaluate((f: HTMLIFrameElement) => f.getBoundingClientRect().height))
      .toBeGreaterThan(2400);
    const end = await page.locator(FRAME).evaluate((f: HTMLIFrameElement) => {
      const el = Document.prototype.getElementById.call(f.contentDocument!, 'end')!;
      return { bottom: el.getBoundingClientRect().bottom, viewport: f.contentWindow!.innerHeight };
    });
    expect(end.bottom).toBeLessThanOrEqual(end.viewport);

    // A link opens in a new tab; one aimed at the frame itself (_self) too, and the frame keeps the email.
    const context = page.context();
    for (const [link, target] of [
      ['#plain', '/terms'],
      ['#self', '/privacy'],
    ] as const) {
      const popup = context.waitForEvent('page');
      await frame.locator(link).click();
      const tab = await popup;
      await tab.waitForURL(`${server.baseUrl}${target}`);
      expect(await tab.evaluate(() => window.opener)).toBeNull();
      await tab.close();
      expect(page.url()).toBe(`${server.baseUrl}${path}`);
      expect(
        await page.locator(FRAME).evaluate((f: HTMLIFrameElement) => f.contentWindow!.location.protocol),
      ).toBe('blob:');
    }

    // An anchor scrolls the page to its target, a form whose inputs are named closest and scrollIntoView.
    const formOnScreen = () =>
      page.locator(FRAME).evaluate((f: HTMLIFrameElement) => {
        const form = Document.prototype.getElementById.call(f.contentDocument!, 'bottom-form')!;
        const top = f.getBoundingClientRect().top + form.getBoundingClientRect().top;
        return top >= 0 && top < window.innerHeight;
      });
    expect(await formOnScreen()).toBe(false);
    await frame.locator('#jump').click();
    await expect.poll(formOnScreen).toBe(true);
    // A click on that form (not on a link or a button) is left alone, without an error. By the
    // mouse: Playwright's own click calls the form's closest(), which is its input.
    const corner = await page.locator(FRAME).evaluate((f: HTMLIFrameElement) => {
      const form = Document.prototype.getElementById.call(f.contentDocument!, 'bottom-form')!;
      const frameBox = f.getBoundingClientRect();
      const box = form.getBoundingClientRect();
      return { x: frameBox.left + box.left + 4, y: frameBox.top + box.top + 4 };
    });
    await page.mouse.click(corner.x, corner.y);
    await page.waitForTimeout(100);
    await shot(page, 'preview-frame-shadowing-1280');
    expect(problems.all()).toEqual([]);
  });
});
