import type { BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenDuringTest, setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { shot, SHOTS_DIR } from '../support/screenshots.ts';
import { toast } from '../support/toasts.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { tabsCutOffWithoutSign } from '../support/tabs.ts';
import { getEmail, sendEmail } from '../support/send-email.ts';

/*
 * Versions in the browser: Edit and Resend from the detail page through the composer to a v2
 * detail page; the version picker; the compare screen (source diffs, renders side by side and
 * swiped); deleting one version or all; the history's one row per thread. Screenshots of the new
 * screens at 1280 and 375 px, light and dark, go to SHOTS_DIR when it is set
 * (tests/support/screenshots.ts).
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { PRO_SENDS_PER_MINUTE: '1000' } });
});
afterAll(async () => server?.close());

/** A tall email, so the renders scroll; `word` and `colour` are what versions change. */
function emailHtml(word: string, colour = '#111827', banner = false): string {
  const rows = Array.from(
    { length: 12 },
    (_, i) =>
      `<tr><td style="padding:24px;font-family:Arial;color:${colour};height:120px">Paragraph ${i + 1}: the ${word} collection.</td></tr>`,
  );
  if (banner)
    rows.splice(
      1,
      0,
      '<tr><td style="background:#4f46e5;color:#fff;padding:24px">Sale ends Sunday</td></tr>',
    );
  return ['<table width="600" cellpadding="0" cellspacing="0">', ...rows, '</table>', ''].join('\n');
}

const send = (u: TestUser, body: Record<string, unknown>) => sendEmail(server, u, body);

const emailOf = (u: TestUser, id: string) => getEmail(server, u, id);

/** The accessible names of a toolbar's width choices, and which one is checked. */
async function widthChoices(page: Page) {
  const group = page.getByRole('tabpanel').getByRole('radiogroup', { name: 'Width' });
  const radios = group.getByRole('radio');
  const names = await radios.evaluateAll((els) =>
    els.map((el) => el.getAttribute('aria-label') ?? el.textContent ?? ''),
  );
  const checked = await group
    .locator('[aria-checked="true"]')
    .evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? el.textContent ?? ''));
  return { names, checked };
}

async function shoot(page: Page, name: string) {
  if (!SHOTS_DIR) return;
  await page.waitForTimeout(300); // fonts and frames settle
  await shot(page, `versions-${name}`);
}

const VIEWS: Array<[string, BrowserContextOptions]> = [
  ['1280-light', { viewport: { width: 1280, height: 900 }, colorScheme: 'light' }],
  ['1280-dark', { viewport: { width: 1280, height: 900 }, colorScheme: 'dark' }],
  ['375-light', { viewport: { width: 375, height: 800 }, colorScheme: 'light' }],
  ['375-dark', { viewport: { width: 375, height: 800 }, colorScheme: 'dark' }],
];

describe('versions of an email in the browser', () => {
  it(
    'edits and resends: detail → composer with the source and options → the v2 detail page',
    { timeout: 120_000 },
    async () => {
      const u = await createUser(server.db, { plan: 'pro' });
      const v1 = await send(u, {
        to: 'client@example.com, boss@example.com',
        html: '<style>p { color: #0a7 }</style>\n<p>Hello {{name}}, the tangerine collection.</p>',
        inlineCss: true,
        template: { syntax: 'handlebars', data: { name: 'Ada' } },
        text: 'Hello Ada, plain.',
      });
      const page = await browser.sharedPage(server, u);
      const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });

      await page.goto(`/app/email/${v1}`);
      await page.getByRole('heading', { level: 1, name: 'Spring sale' }).waitFor();
      // One version: no badge, no picker.
      expect(await page.getByTestId('version-badge').count()).toBe(0);
      expect(await page.getByTestId('version-picker').count()).toBe(0);
      await page.getByRole('link', { name: 'Edit and Resend' }).click();
      await page.waitForURL(`**/app/send?from=${v1}`);
      const banner = page.getByTestId('editing-banner');
      await banner.waitFor();
      expect(await banner.innerText()).toContain(
        'Editing version 1 of “Spring sale”. Sending makes version 2.',
      );
      expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe(
        'client@example.com, boss@example.com',
      );
      expect(await page.getByLabel('Subject').inputValue()).toBe('Spring sale');
      const editor = page.locator('.cm-content');
      await expect.poll(() => editor.innerText()).toContain('tangerine');
      expect(await page.getByRole('switch', { name: 'Inline CSS' }).getAttribute('aria-checked')).toBe(
        'true',
      );
      await shoot(page, 'composer-editing-1280-light');

      // Change one word and the subject, then send.
      await editor.click();
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.insertText(
        '<style>p { color: #0a7 }</style>\n<p>Hello {{name}}, the lemon collection.</p>',
      );
      await page.getByLabel('Subject').fill('Spring sale, round 2');
      await page.getByRole('button', { name: 'Send Test Email' }).click();
      await toast(page, 'success', 'Email sent successfully!').waitFor();
      await page.waitForURL(/\/app\/email\/[0-9a-f-]{36}$/);
      const v2 = new URL(page.url()).pathname.split('/').pop()!;
      expect(v2).not.toBe(v1);
      await page.getByRole('heading', { level: 1, name: 'Spring sale, round 2' }).waitFor();
      expect(await page.getByTestId('version-badge').innerText()).toBe('v2');
      await page.getByRole('button', { name: /Version 2 · 2 Versions/ }).waitFor();

      // The new version kept every option of the first, with the edited source.
      const sent = await emailOf(u, v2);
      expect(sent).toMatchObject({
        threadId: v1,
        version: 2,
        to: 'client@example.com, boss@example.com',
        source: {
          html: '<style>p { color: #0a7 }</style>\n<p>Hello {{name}}, the lemon collection.</p>',
          inlineCss: true,
          template: { syntax: 'handlebars', data: { name: 'Ada' } },
          text: 'Hello Ada, plain.',
          format: 'html',
        },
      });
      expect(sent.html).toContain('Hello Ada, the lemon collection.');
      expect(problems.all()).toEqual([]);
    },
  );

  it('Edit and Resend starts from the subject as written, its merge tags kept', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const v1 = await send(u, {
      subject: 'Hi {{name}}, your order',
      html: '<p>Hello {{name}}</p>',
      template: { syntax: 'handlebars', data: { name: 'Ada' } },
    });
    const page = await browser.sharedPage(server, u);
    await page.goto(`/app/send?from=${v1}`);
    await page.getByTestId('editing-banner').waitFor();
    expect(await page.getByLabel('Subject').inputValue()).toBe('Hi {{name}}, your order');
  });

  it('switches versions with the picker, each at its own URL', { timeout: 90_000 }, async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const v1 = await send(u, { subject: 'Round one', html: emailHtml('tangerine') });
    const v2 = await send(u, { subject: 'Round two', html: emailHtml('lemon'), parentId: v1 });
    const page = await browser.signedInPage(server, u);
    const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });
    await page.goto(`/app/email/${v2}`);
    await page.getByRole('heading', { level: 1, name: 'Round two' }).waitFor();
    await page.getByRole('button', { name: /Version 2 · 2 Versions/ }).click();
    const items = page.getByRole('menuitemradio');
    expect(await items.allInnerTexts()).toEqual([
      expect.stringMatching(/^Version 2\n.*Round two$/),
      expect.stringMatching(/^Version 1\n.*Round one$/),
    ]);
    expect(await items.first().getAttribute('aria-checked')).toBe('true');
    await items.nth(1).click();
    await page.waitForURL(`**/app/email/${v1}`);
    await page.getByRole('heading', { level: 1, name: 'Round one' }).waitFor();
    expect(await page.getByTestId('version-badge').innerText()).toBe('v1');
    await page.getByText('A newer version exists: version 2.').waitFor();
    await page
      .frameLocator('iframe[data-testid="email-frame"]')
      .getByText('Paragraph 1: the tangerine collection.')
      .waitFor();
    for (const [name, options] of VIEWS) {
      const shot = await browser.pageWith(server, u, options);
      await shot.goto(`/app/email/${v2}`);
      await shot.getByRole('heading', { level: 1, name: 'Round two' }).waitFor();
      await shoot(shot, `detail-${name}`);
    }
    expect(problems.all()).toEqual([]);
  });

  it(
    'compares two versions: source diffs with the changed words, renders side by side and swiped',
    { timeout: 150_000 },
    async () => {
      const u = await createUser(server.db, { plan: 'pro' });
      const v1 = await send(u, { html: emailHtml('tangerine') });
      const v2 = await send(u, { html: emailHtml('lemon', '#b91c1c', true), parentId: v1 });
      const page = await browser.signedInPage(server, u);
      const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });
      await page.goto(`/app/email/${v2}`);
      await page.getByRole('button', { name: 'Compare With…' }).click();
      await page.getByRole('menuitem', { name: /Version 1/ }).click();
      await page.waitForURL(`**/app/email/${v1}/compare/${v2}`);
      await page.getByRole('heading', { level: 1, name: 'Compare Versions' }).waitFor();

      // Written source, side by side: 12 changed lines (word and colour) and the inserted banner.
      const summary = page.getByTestId('diff-summary');
      await summary.waitFor();
      expect(await summary.innerText()).toBe('12 lines changed, 1 line added.');
      const split = page.getByTestId('diff-split');
      expect(await split.locator('tr[data-kind="added"]').count()).toBe(1);
      expect(await split.locator('tr[data-kind="added"] [data-side="right"]').innerText()).toContain(
        'Sale ends Sunday',
      );
      const removedWords = await split
        .locator('tr[data-kind="changed"] mark[data-change="removed"]')
        .allInnerTexts();
      const addedWords = await split
        .locator('tr[data-kind="changed"] mark[data-change="added"]')
        .allInnerTexts();
      expect(new Set(removedWords)).toEqual(new Set(['111827', 'tangerine']));
      expect(new Set(addedWords)).toEqual(new Set(['b91c1c', 'lemon']));
      for (const [name, options] of VIEWS.filter(([n]) => n.startsWith('1280'))) {
        const shot = await browser.pageWith(server, u, options);
        await shot.goto(`/app/email/${v1}/compare/${v2}`);
        await shot.getByTestId('diff-split').waitFor();
        await shoot(shot, `compare-source-${name}`);
      }

      // Inline: the old line, then the new one.
      await page.getByRole('radio', { name: 'Inline' }).click();
      const inline = page.getByTestId('diff-inline');
      await inline.waitFor();
      expect(await inline.locator('tr[data-kind="removed"]').count()).toBe(12);
      expect(await inline.locator('tr[data-kind="added"]').count()).toBe(13);

      // What was sent: the same changes in the HTML as sent.
      await page.getByRole('tab', { name: 'Sent HTML' }).click();
      await page.getByRole('tabpanel').getByTestId('diff-summary').waitFor();
      expect(await page.getByRole('tabpanel').getByTestId('diff-summary').innerText()).toBe(
        '12 lines changed, 1 line added.',
      );

      // Visual, side by side: both renders, scrolling together.
      await page.getByRole('tab', { name: 'Visual' }).click();
      const left = page.getByTestId('visual-left');
      const right = page.getByTestId('visual-right');
      await left.frameLocator('iframe').getByText('Paragraph 1: the tangerine collection.').waitFor();
      await right.frameLocator('iframe').getByText('Paragraph 1: the lemon collection.').waitFor();
      await expect.poll(() => right.evaluate((el) => el.scrollHeight - el.clientHeight)).toBeGreaterThan(300);
      await left.evaluate((el) => (el.scrollTop = 300));
      await expect.poll(() => right.evaluate((el) => el.scrollTop)).toBe(300);
      await right.evaluate((el) => (el.scrollTop = 120));
      await expect.poll(() => left.evaluate((el) => el.scrollTop)).toBe(120);
      // One toolbar drives both: Mobile width applies to each frame.
      await page.getByRole('radio', { name: /Mobile/ }).click();
      const frameWidth = (box: typeof left) =>
        box.locator('iframe').evaluate((el) => (el as HTMLElement).style.width);
      await expect.poll(() => frameWidth(left)).toBe('375px');
      await expect.poll(() => frameWidth(right)).toBe('375px');
      await page.getByRole('radio', { name: 'Desktop, 800 pixels' }).click();
      await shoot(page, 'compare-visual-1280-light');

      // Swipe: the right version over the left, cut at the slider.
      await page.getByRole('radio', { name: 'Swipe' }).click();
      const top = page.getByTestId('swipe-top');
      await top.waitFor();
      expect(await top.evaluate((el) => el.style.clipPath)).toBe('inset(0px 0px 0px 50%)');
      await page.getByRole('slider').fill('20');
      expect(await top.evaluate((el) => el.style.clipPath)).toBe('inset(0px 0px 0px 20%)');
      expect(await page.getByTestId('visual-swipe').locator('iframe').count()).toBe(2);
      await shoot(page, 'compare-swipe-1280-light');

      for (const [name, options] of VIEWS.filter(([n]) => n.startsWith('375'))) {
        const shot = await browser.pageWith(server, u, options);
        await shot.goto(`/app/email/${v1}/compare/${v2}`);
        await shot.getByTestId('diff-inline').waitFor(); // phones start on Inline
        await shoot(shot, `compare-source-${name}`);
        await shot.getByRole('tab', { name: 'Visual' }).click();
        await shot
          .getByTestId('visual-left')
          .frameLocator('iframe')
          .getByText('Paragraph 1: the tangerine collection.')
          .waitFor();
        await shoot(shot, `compare-visual-${name}`);
        await shot.getByRole('radio', { name: 'Swipe' }).click();
        await shot
          .getByTestId('swipe-top')
          .frameLocator('iframe')
          .getByText('Paragraph 1: the lemon collection.')
          .waitFor();
        await shoot(shot, `compare-swipe-${name}`);
      }
      expect(problems.all()).toEqual([]);
    },
  );

  it(
    'compares two minified versions (one long line) by their changed words',
    { timeout: 90_000 },
    async () => {
      const u = await createUser(server.db, { plan: 'pro' });
      let tables = '';
      for (let n = 0; tables.length < 150_000; n++)
        tables += `<table width="600"><tr><td><p style="margin:0">Story ${n}: a paragraph.</p></td></tr></table>`;
      const html = `<!DOCTYPE html><html><body>${tables}</body></html>`;
      const v1 = await send(u, { html });
      const v2 = await send(u, { html: html.replace('Story 300:', 'Story three hundred:'), parentId: v1 });
      const page = await browser.sharedPage(server, u);
      const problems = watchProblems(page);
      await page.goto(`/app/email/${v1}/compare/${v2}`);
      await page.locator('mark[data-change]').first().waitFor();
      expect(await page.locator('mark[data-change]').allInnerTexts()).toEqual(['300', 'three hundred']);
      // The rest of the line is counted, not laid out: the page stays a screen or two tall.
      expect(await page.locator('[data-elided]').first().innerText()).toMatch(
        /^… [\d,]+ unchanged characters …$/,
      );
      expect(await page.evaluate(() => document.documentElement.scrollHeight)).toBeLessThan(3_000);
      expect(problems.all()).toEqual([]);
    },
  );

  it('lists what the diffs do not show (subject, recipients, Inline CSS), and says when two emails are not versions of one', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const v1 = await send(u, { html: '<p>One</p>' });
    const v2 = await send(u, {
      html: '<p>One</p>',
      subject: 'Spring sale: last day',
      to: 'client@example.com, boss@example.com',
      inlineCss: true,
      parentId: v1,
    });
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page);
    await page.goto(`/app/email/${v1}/compare/${v2}`);
    const changes = page.getByTestId('other-changes');
    await changes.waitFor();
    expect(await changes.locator('dt').allInnerTexts()).toEqual(['Subject', 'To', 'Inline CSS']);
    expect(await changes.locator('del').allInnerTexts()).toEqual([
      'Spring sale',
      'client@example.com',
      'Off',
    ]);
    expect(await changes.locator('ins').allInnerTexts()).toEqual([
      'Spring sale: last day',
      'client@example.com, boss@example.com',
      'On',
    ]);
    expect(await page.getByRole('note').count()).toBe(0);
    await shoot(page, 'compare-other-changes-1280-light');

    // Another email's id in the address: compared, but named as what it is.
    const other = await send(u, { html: '<p>Two</p>', subject: 'Newsletter' });
    await page.goto(`/app/email/${v1}/compare/${other}`);
    await page
      .getByRole('note')
      .getByText('These are two different emails, not versions of one', { exact: false })
      .waitFor();
    expect(await page.getByTestId('compare-pickers').count()).toBe(0);
    expect(await changes.locator('dt').allInnerTexts()).toEqual(['Subject']);
    await shoot(page, 'compare-two-emails-1280-light');
    // Unchanged sides list nothing.
    await page.goto(`/app/email/${v1}/compare/${v1}`);
    await page.getByTestId('compare-pickers').waitFor();
    expect(await changes.count()).toBe(0);
    expect(problems.all()).toEqual([]);
  });

  it('marks only the inserted banner in the pixel diff of two versions', { timeout: 90_000 }, async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const v1 = await send(u, { html: emailHtml('tangerine') });
    const v2 = await send(u, { html: emailHtml('tangerine', '#111827', true), parentId: v1 });
    const page = await browser.sharedPage(server, u);
    await page.goto(`/app/email/${v1}/compare/${v2}?view=600`);
    await page.getByRole('tab', { name: 'Pixel Diff' }).click();
    const summary = page.getByTestId('pixel-diff-summary');
    await summary.waitFor();
    // The banner pushes the eleven paragraphs below it down: one added region, nothing else.
    expect(await summary.innerText()).toBe('1 changed region');
    const regions = await page.getByTestId('pixel-diff-regions').locator('li').allInnerTexts();
    expect(regions).toHaveLength(1);
    expect(regions[0]).toMatch(/^Added: \d+ px tall at \d+ px in the right version$/);
    await page.getByTestId('pixel-diff-image').waitFor();
    await shoot(page, 'compare-pixels-1280-light');

    // Dark compares the dark renders; the same single change.
    await page.getByRole('radio', { name: 'Dark' }).click();
    await expect.poll(() => page.getByTestId('pixel-diff-summary').innerText()).toBe('1 changed region');
    await shoot(page, 'compare-pixels-1280-dark');
  });

  it('names the version and the count truly after a version in the middle was deleted', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const v1 = await send(u, { subject: 'Gap one', html: emailHtml('tangerine') });
    const v2 = await send(u, { subject: 'Gap two', html: emailHtml('orange'), parentId: v1 });
    const v3 = await send(u, { subject: 'Gap three', html: emailHtml('lemon'), parentId: v2 });
    const res = await server.app.inject({ method: 'DELETE', url: `/api/email/${v2}`, headers: u.headers });
    expect(res.statusCode).toBe(200);
    const page = await browser.sharedPage(server, u);
    await page.goto(`/app/email/${v3}`);
    await page.getByRole('heading', { level: 1, name: 'Gap three' }).waitFor();
    const picker = page.getByTestId('version-picker').getByRole('button').first();
    expect(await picker.innerText()).toBe('Version 3 · 2 Versions');
    expect(await page.getByTestId('version-picker').innerText()).not.toMatch(/Version 3 of 2/);
    await picker.click();
    expect(await page.getByRole('menuitemradio').allInnerTexts()).toEqual([
      expect.stringMatching(/^Version 3\n/),
      expect.stringMatching(/^Version 1\n/),
    ]);
    await shoot(page, 'picker-after-delete-1280-light');
  });

  it(
    'at 375 px the compare tabs show there are more; Visual and Pixel Diff start alike',
    { timeout: 120_000 },
    async () => {
      const u = await createUser(server.db, { plan: 'pro' });
      const v1 = await send(u, { html: emailHtml('tangerine') });
      const v2 = await send(u, { html: emailHtml('tangerine', '#111827', true), parentId: v1 });
      for (const [name, options] of VIEWS.filter(([n]) => n.startsWith('375'))) {
        const page = await browser.pageWith(server, u, options);
        const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });
        const pixelWidths: string[] = [];
        listenDuringTest(page, 'request', (req) => {
          if (req.url().includes('/pixels?')) pixelWidths.push(new URL(req.url()).searchParams.get('width')!);
        });
        await page.goto(`/app/email/${v1}/compare/${v2}`);
        await page.getByTestId('diff-inline').waitFor();
        const pixelTab = page.getByRole('tab', { name: 'Pixel Diff' });
        // Pixel Diff does not fit: the list says so at its end.
        const end = page.locator('[data-scroll-hint="end"]');
        await end.waitFor();
        expect(await tabsCutOffWithoutSign(page)).toEqual([]);
        expect(await page.locator('[data-scroll-hint="start"]').count()).toBe(0);
        await shoot(page, `compare-tabs-${name}`);
        // The hint scrolls the list: Pixel Diff comes into view, and the start now has the hint.
        const pixelTabShown = () =>
          pixelTab.evaluate((tab) => {
            const list = tab.closest('[role="tablist"]')!.getBoundingClientRect();
            return tab.getBoundingClientRect().right <= list.right + 0.5;
          });
        expect(await pixelTabShown()).toBe(false);
        await end.click();
        await expect.poll(pixelTabShown).toBe(true);
        await page.locator('[data-scroll-hint="start"]').waitFor();
        expect(await tabsCutOffWithoutSign(page)).toEqual([]);
        await shoot(page, `compare-tabs-scrolled-${name}`);

        await page.getByRole('tab', { name: 'Visual' }).click();
        await page
          .getByTestId('visual-left')
          .frameLocator('iframe')
          .getByText('Paragraph 1: the tangerine collection.')
          .waitFor();
        const visual = await widthChoices(page);
        expect(visual.checked).toEqual(['Small, 320 pixels']);
        await shoot(page, `compare-visual-start-${name}`);

        await pixelTab.click();
        await page.getByTestId('pixel-diff-summary').waitFor({ timeout: 60_000 });
        const pixels = await widthChoices(page);
        expect(pixels).toEqual(visual);
        expect(pixelWidths).toEqual(['320']);
        await page.getByTestId('pixel-diff-image').waitFor();
        await shoot(page, `compare-pixels-start-${name}`);
        expect(await tabsCutOffWithoutSign(page)).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
        expect(problems.all()).toEqual([]);
      }
    },
  );

  it(
    'shows one history row per thread with its badge, and finds an older version’s word',
    { timeout: 90_000 },
    async () => {
      const u = await createUser(server.db, { plan: 'pro' });
      const lone = await send(u, { subject: 'Single email', html: '<p>just one</p>' });
      const v1 = await send(u, { html: emailHtml('tangerine') });
      const v2 = await send(u, { html: emailHtml('orange'), parentId: v1 });
      const v3 = await send(u, { subject: 'Spring sale, final', html: emailHtml('lemon'), parentId: v2 });
      const page = await browser.signedInPage(server, u);
      const problems = watchProblems(page);
      await page.goto('/app/history');
      const rows = page.getByTestId('email-row');
      await expect.poll(() => rows.count()).toBe(2);
      expect(await rows.first().getAttribute('data-id')).toBe(v3);
      expect(await rows.first().getByTestId('version-badge').innerText()).toBe('v3');
      expect(await rows.nth(1).getAttribute('data-id')).toBe(lone);
      expect(await rows.nth(1).getByTestId('version-badge').count()).toBe(0);
      await shoot(page, 'history-1280-light');

      await page.getByRole('searchbox', { name: 'Search emails' }).fill('tangerine');
      await expect.poll(() => page.getByTestId('matched-version').count()).toBe(1);
      expect(await rows.count()).toBe(1);
      expect(await page.getByTestId('matched-version').innerText()).toBe('Match in version 1');
      await shoot(page, 'history-search-1280-light');
      await page.getByTestId('matched-version').click();
      await page.waitForURL(`**/app/email/${v1}`);

      for (const [name, options] of VIEWS.filter(([n]) => n !== '1280-light')) {
        const shot = await browser.pageWith(server, u, options);
        await shot.goto('/app/history?q=tangerine');
        await shot.getByTestId('matched-version').waitFor();
        await shoot(shot, `history-search-${name}`);
      }

      // The row's Delete asks about every version and deletes the thread.
      await page.goto('/app/history');
      await expect.poll(() => rows.count()).toBe(2);
      await rows
        .first()
        .getByRole('button', { name: /Actions for/ })
        .click();
      await page.getByRole('menuitem', { name: 'Delete' }).click();
      await page.getByText('Are you sure you want to delete all 3 versions of this email?').waitFor();
      await page.getByRole('button', { name: 'Delete 3 Versions' }).click();
      await toast(page, 'success', 'Email deleted').waitFor();
      await expect.poll(() => rows.count()).toBe(1);
      for (const id of [v1, v2, v3]) {
        const res = await server.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: u.headers });
        expect(res.statusCode).toBe(404);
      }
      expect(problems.all()).toEqual([]);
    },
  );

  it('deletes one version, then all of them, each asked explicitly', { timeout: 90_000 }, async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const single = await send(u, { subject: 'Only version', html: '<p>one</p>' });
    const v1 = await send(u, { html: emailHtml('tangerine') });
    const v2 = await send(u, { html: emailHtml('orange'), parentId: v1 });
    const v3 = await send(u, { subject: 'Spring sale, final', html: emailHtml('lemon'), parentId: v1 });
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });

    await page.goto(`/app/email/${v3}`);
    await page.getByRole('heading', { level: 1, name: 'Spring sale, final' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('menuitem', { name: 'Delete This Version' }).click();
    const dialog = page.getByRole('dialog');
    await dialog
      .getByText('Are you sure you want to delete version 3 of this email? The other 2 versions stay.')
      .waitFor();
    await shoot(page, 'delete-version-1280-light');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'success', 'Email deleted').waitFor();
    await page.waitForURL(`**/app/email/${v2}`);
    await page.getByRole('button', { name: /Version 2 · 2 Versions/ }).waitFor();

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('menuitem', { name: 'Delete All Versions' }).click();
    await dialog.getByText('Are you sure you want to delete all 2 versions of this email?').waitFor();
    await dialog.getByRole('button', { name: 'Delete 2 Versions' }).click();
    await page.waitForURL('**/app/history');
    for (const id of [v1, v2, v3]) {
      const res = await server.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: u.headers });
      expect(res.statusCode).toBe(404);
    }

    // An email of one version: the spec's question, and a plain Delete. Its DELETE reaches the
    // server at once and its answer is held 3 s: a poll of the email meanwhile (every 2.5 s here,
    // no mail worker runs) would come back 404.
    await page.route(`**/api/email/${single}`, async (route) => {
      if (route.request().method() !== 'DELETE') return route.continue();
      const answer = await route.fetch();
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      return route.fulfill({ response: answer });
    });
    await page.goto(`/app/email/${single}`);
    await page.getByRole('heading', { level: 1, name: 'Only version' }).waitFor();
    await page.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByText('Are you sure you want to delete this email?').waitFor();
    expect(await dialog.getByRole('heading').innerText()).toBe('Delete Email');
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.waitForURL('**/app/history');
    expect(problems.all()).toEqual([]);
  });
});
