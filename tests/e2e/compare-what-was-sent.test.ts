import type { BrowserContextOptions, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { shot, SHOTS_DIR } from '../support/screenshots.ts';
import { tabsCutOffWithoutSign } from '../support/tabs.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { getEmail, sendEmail } from '../support/send-email.ts';

/*
 * The compare screen shows everything two versions were written and sent with
 * (docs/decisions/0122-compare-shows-the-text-part.md): the plain-text part and where it came
 * from, the merge tags' syntax and sample data, a change of line endings; it says the versions
 * are the same only when nothing differs. Screenshots at 1280 and 375 px, light and dark, go to
 * SHOTS_DIR when it is set (tests/support/screenshots.ts).
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { PRO_SENDS_PER_MINUTE: '1000' } });
});
afterAll(async () => server?.close());

const HTML =
  '<table width="600"><tr><td style="padding:24px">Hello, the spring collection.</td></tr></table>';

const send = (u: TestUser, body: Record<string, unknown>) => sendEmail(server, u, body);

const emailOf = (u: TestUser, id: string) => getEmail(server, u, id);

/** Each tab's name and whether it is marked as changed (its dot), and which one is open. */
async function tabs(page: Page) {
  const list = page.getByRole('tablist');
  await list.waitFor();
  return list.getByRole('tab').evaluateAll((els) =>
    els.map((el) => ({
      name: el.textContent?.replace('(changed)', '').trim(),
      changed: el.querySelector('[data-testid="tab-changed"]') !== null,
      open: el.getAttribute('aria-selected') === 'true',
    })),
  );
}

/** Whether the open tab is in view: inside its list, clear of the list's sign that there is more. */
const openTabShown = (page: Page) =>
  page.locator('[role="tab"][aria-selected="true"]').evaluate((tab) => {
    const list = tab.closest('[role="tablist"]')!.getBoundingClientRect();
    const box = tab.getBoundingClientRect();
    const hint = tab.closest('[role="tablist"]')!.parentElement!.querySelector('[data-scroll-hint="end"]');
    const end = hint ? hint.getBoundingClientRect().left : list.right;
    return box.left >= list.left - 0.5 && box.right <= end + 0.5;
  });

/** The summary sentence of the open tab's diff (the first, where a tab has two). */
const summary = (panel: Locator) => panel.getByTestId('diff-summary').first().innerText();

async function shoot(page: Page, name: string) {
  if (!SHOTS_DIR) return;
  await page.waitForTimeout(300); // fonts settle
  await shot(page, `compare-${name}`);
}

const VIEWS: Array<[string, BrowserContextOptions]> = [
  ['1280-light', { viewport: { width: 1280, height: 900 }, colorScheme: 'light' }],
  ['1280-dark', { viewport: { width: 1280, height: 900 }, colorScheme: 'dark' }],
  ['375-light', { viewport: { width: 375, height: 800 }, colorScheme: 'light' }],
  ['375-dark', { viewport: { width: 375, height: 800 }, colorScheme: 'dark' }],
];

describe('the compare screen shows what was sent and written', () => {
  it(
    'shows a plain-text part written by hand: its diff, where each came from, no "same"',
    { timeout: 120_000 },
    async () => {
      const u = await createUser(server.db, { plan: 'pro' });
      const v1 = await send(u, { html: HTML });
      const v2 = await send(u, { html: HTML, text: 'Custom plain text part', parentId: v1 });
      const [e1, e2] = [await emailOf(u, v1), await emailOf(u, v2)];
      expect(e2.html).toBe(e1.html);
      expect(e2.text).not.toBe(e1.text);

      const page = await browser.sharedPage(server, u);
      const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });
      await page.goto(`/app/email/${v1}/compare/${v2}`);
      // Only the text part differs: its tab is marked and open.
      expect(await tabs(page)).toEqual([
        { name: 'Written Source', changed: false, open: false },
        { name: 'Sent HTML', changed: false, open: false },
        { name: 'Plain Text', changed: true, open: true },
        { name: 'Visual', changed: false, open: false },
        { name: 'Pixel Diff', changed: false, open: false },
      ]);
      expect(await page.getByTestId('compare-same').count()).toBe(0);
      const changes = page.getByTestId('other-changes');
      expect(await changes.locator('dt').allInnerTexts()).toEqual(['Plain text']);
      expect(await changes.locator('del').allInnerTexts()).toEqual(['Generated from the HTML']);
      expect(await changes.locator('ins').allInnerTexts()).toEqual(['Written by you']);

      const panel = page.getByRole('tabpanel');
      await panel.getByTestId('diff-summary').waitFor();
      expect(await summary(panel)).toBe('1 line added, 1 line removed.');
      const split = panel.getByTestId('diff-split');
      expect(await split.locator('[data-kind="removed"] [data-side="left"]').innerText()).toBe(e1.text);
      expect(await split.locator('[data-kind="added"] [data-side="right"]').innerText()).toBe(
        'Custom plain text part',
      );
      // Each side says where its text part came from.
      expect(await panel.getByText('Version 1 · Generated from the HTML').count()).toBe(1);
      expect(await panel.getByText('Version 2 · Written by you').count()).toBe(1);
      await shoot(page, 'text-part-1280-light');

      // The HTML tabs say what is the same, and only that.
      await page.getByRole('tab', { name: 'Written Source' }).click();
      expect(await summary(panel)).toBe('No differences in the source as written.');
      await page.getByRole('tab', { name: 'Sent HTML' }).click();
      expect(await summary(panel)).toBe('No differences in the HTML as sent.');
      expect(await page.getByText('both versions are the same').count()).toBe(0);

      for (const [name, options] of VIEWS.slice(1)) {
        const view = await browser.pageWith(server, u, options);
        await view.goto(`/app/email/${v1}/compare/${v2}`);
        await view
          .getByRole('tabpanel')
          .getByTestId(name.startsWith('375') ? 'diff-inline' : 'diff-split')
          .waitFor();
        expect(await view.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
        expect(await tabsCutOffWithoutSign(view)).toEqual([]);
        // On a phone the open Plain Text tab lies past the list's edge: it is scrolled into view.
        await expect.poll(() => openTabShown(view)).toBe(true);
        await shoot(view, `text-part-${name}`);
      }
      expect(problems.all()).toEqual([]);
    },
  );

  it('shows a change of the sample data and of the merge-tag syntax', { timeout: 120_000 }, async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const html = '<p>Hello {{name}}, the spring collection.</p>';
    const data = { name: 'Ada', city: 'London' };
    const v1 = await send(u, { html, template: { syntax: 'handlebars', data } });
    const v2 = await send(u, {
      html,
      template: { syntax: 'handlebars', data: { ...data, name: 'Grace' } },
      parentId: v1,
    });
    const v3 = await send(u, { html, template: { syntax: 'liquid', data }, parentId: v1 });
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });

    // The data changed: the Written Source tab shows it, after the unchanged source.
    await page.goto(`/app/email/${v1}/compare/${v2}`);
    expect((await tabs(page)).filter((t) => t.changed).map((t) => t.name)).toEqual([
      'Written Source',
      'Sent HTML',
      'Plain Text',
    ]);
    const panel = page.getByRole('tabpanel');
    await panel.getByTestId('diff-summary').first().waitFor();
    expect(await summary(panel)).toBe('No differences in the source as written.');
    const sampleData = panel.getByTestId('sample-data-diff');
    await sampleData.getByTestId('diff-summary').waitFor();
    expect(await sampleData.getByTestId('diff-summary').innerText()).toBe('1 line changed.');
    expect(await sampleData.locator('mark[data-change="removed"]').allInnerTexts()).toEqual(['Ada']);
    expect(await sampleData.locator('mark[data-change="added"]').allInnerTexts()).toEqual(['Grace']);
    expect(await page.getByTestId('other-changes').count()).toBe(0);
    expect(await page.getByTestId('compare-same').count()).toBe(0);
    await shoot(page, 'sample-data-1280-light');
    for (const [name, options] of VIEWS.slice(1)) {
      const view = await browser.pageWith(server, u, options);
      await view.goto(`/app/email/${v1}/compare/${v2}`);
      await view.getByTestId('sample-data-diff').getByTestId('diff-summary').waitFor();
      expect(await view.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
      await shoot(view, `sample-data-${name}`);
    }

    // Only the syntax changed (the same email sent): listed, and no tab is marked.
    await page.goto(`/app/email/${v1}/compare/${v3}`);
    const changes = page.getByTestId('other-changes');
    await changes.waitFor();
    expect(await changes.locator('dt').allInnerTexts()).toEqual(['Merge tags']);
    expect(await changes.locator('del').allInnerTexts()).toEqual(['Handlebars']);
    expect(await changes.locator('ins').allInnerTexts()).toEqual(['Liquid']);
    expect((await tabs(page)).filter((t) => t.changed)).toEqual([]);
    expect(await page.getByTestId('compare-same').count()).toBe(0);
    expect(await page.getByTestId('sample-data-diff').getByTestId('diff-summary').innerText()).toBe(
      'No differences in the sample data.',
    );
    expect(problems.all()).toEqual([]);
  });

  it('marks a change of line endings only, and says so', { timeout: 90_000 }, async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const v1 = await send(u, { html: '<p>a</p>\n<p>b</p>' });
    const v2 = await send(u, { html: '<p>a</p>\r\n<p>b</p>\n', parentId: v1 });
    expect((await emailOf(u, v2)).source.html).toBe('<p>a</p>\r\n<p>b</p>\n');
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });
    await page.goto(`/app/email/${v1}/compare/${v2}`);
    const panel = page.getByRole('tabpanel');
    await panel.getByTestId('diff-split').waitFor();
    expect(await summary(panel)).toBe('2 lines changed (only their line endings).');
    // Every counted row shows its change on both sides: the ending each side has.
    const rows = panel.locator('tr[data-kind="changed"]');
    expect(await rows.count()).toBe(2);
    const marks = (side: string) =>
      rows
        .locator(`[data-side="${side}"] mark[data-change]`)
        .evaluateAll((els) => els.map((el) => [el.getAttribute('data-end'), el.textContent]));
    expect(await marks('left')).toEqual([
      ['lf', '↵LF'],
      ['none', 'No newline at end of file'],
    ]);
    expect(await marks('right')).toEqual([
      ['crlf', '↵CRLF'],
      ['lf', '↵LF'],
    ]);
    await shoot(page, 'line-endings-1280-light');

    // Inline: each old line and its new line, marked alike.
    await page.getByRole('radio', { name: 'Inline' }).click();
    const inline = panel.getByTestId('diff-inline');
    await inline.waitFor();
    expect(
      await inline
        .locator('tr[data-kind="removed"] mark[data-end]')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-end'))),
    ).toEqual(['lf', 'none']);
    expect(
      await inline
        .locator('tr[data-kind="added"] mark[data-end]')
        .evaluateAll((els) => els.map((el) => el.getAttribute('data-end'))),
    ).toEqual(['crlf', 'lf']);
    for (const [name, options] of VIEWS.slice(1)) {
      const view = await browser.pageWith(server, u, options);
      await view.goto(`/app/email/${v1}/compare/${v2}`);
      await view.getByRole('tabpanel').locator('mark[data-end]').first().waitFor();
      expect(await view.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
      await shoot(view, `line-endings-${name}`);
    }
    expect(problems.all()).toEqual([]);
  });

  it('says the versions are the same when nothing written or sent differs', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const body = { html: HTML, text: 'Plain', template: { syntax: 'handlebars', data: { name: 'Ada' } } };
    const v1 = await send(u, body);
    const v2 = await send(u, { ...body, parentId: v1 });
    const page = await browser.sharedPage(server, u);
    await page.goto(`/app/email/${v1}/compare/${v2}`);
    const same = page.getByTestId('compare-same');
    await same.waitFor();
    expect(await same.innerText()).toBe(
      'No differences: both versions are the same, as written and as sent.',
    );
    expect(await page.getByTestId('other-changes').count()).toBe(0);
    expect((await tabs(page)).filter((t) => t.changed)).toEqual([]);
    expect((await tabs(page)).find((t) => t.open)?.name).toBe('Written Source');
    await shoot(page, 'same-1280-light');

    // Two emails of their own, alike: not "versions".
    const other = await send(u, body);
    await page.goto(`/app/email/${v1}/compare/${other}`);
    await page.getByText('These are two different emails, not versions of one', { exact: false }).waitFor();
    expect(await same.innerText()).toBe('No differences: both emails are the same, as written and as sent.');
  });
});
