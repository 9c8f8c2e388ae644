import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchProblems, type PageProblems } from '../support/browser.ts';
import { cachedWebBuild } from '../support/web-build.ts';

// The design system's primitives, driven by keyboard and mouse in Chromium on a harness page
// (fixtures/ui-harness) built with the app's own Vite plugins (once per change of its inputs).
const ORIGIN = 'http://ui-harness.test';
const browser = setupBrowser();
let outDir: string;

beforeAll(async () => {
  const harness = await cachedWebBuild({
    name: 'ui-harness',
    inputs: ['tests/e2e/fixtures/ui-harness', 'src/web', 'src/shared', 'tsconfig.json', 'package-lock.json'],
    build: async (dir) => {
      const [{ build }, { default: react }, { default: tailwindcss }] = await Promise.all([
        import('vite'),
        import('@vitejs/plugin-react'),
        import('@tailwindcss/vite'),
      ]);
      await build({
        root: path.join(import.meta.dirname, 'fixtures/ui-harness'),
        configFile: false,
        logLevel: 'silent',
        plugins: [react(), tailwindcss()],
        build: { outDir: dir, emptyOutDir: true, minify: false },
      });
    },
  });
  outDir = harness.dir;
});

async function openHarness(): Promise<{ page: Page; problems: PageProblems }> {
  // The file's shared page, on the harness's made-up origin; the next test's call removes this route.
  const page = await browser.sharedPage({ baseUrl: ORIGIN });
  await page.route(`${ORIGIN}/**`, async (route) => {
    const url = new URL(route.request().url());
    const file = path.join(outDir, url.pathname === '/' ? 'index.html' : url.pathname);
    if (!file.startsWith(outDir) || !fs.existsSync(file))
      return route.fulfill({ status: 404, body: 'not found' });
    const type = file.endsWith('.js') ? 'text/javascript' : file.endsWith('.css') ? 'text/css' : 'text/html';
    return route.fulfill({ status: 200, contentType: type, body: fs.readFileSync(file) });
  });
  const problems = watchProblems(page);
  await page.goto(`${ORIGIN}/`);
  await page.getByRole('heading', { name: 'UI primitives' }).waitFor();
  return { page, problems };
}

const focusedText = (page: Page) => page.evaluate(() => document.activeElement?.textContent?.trim() ?? null);
const focusInsideDialog = (page: Page) =>
  page.evaluate(() => Boolean(document.activeElement?.closest('dialog[open]')));

describe('design system primitives', () => {
  it('dialog: named by its title, keeps focus inside, closes on Escape and returns focus', async () => {
    const { page, problems } = await openHarness();
    const opener = page.getByRole('button', { name: 'Open dialog' });
    await opener.click();
    const dialog = page.getByRole('dialog', { name: 'Share Link' });
    await dialog.waitFor();
    expect(await dialog.getAttribute('aria-describedby')).toBeTruthy();
    expect(await dialog.getByText('Anyone with the link can view this email.').isVisible()).toBe(true);
    expect(await focusInsideDialog(page)).toBe(true);

    // The page behind is inert: Tab never reaches it.
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      const inside = await focusInsideDialog(page);
      const onBody = await page.evaluate(() => document.activeElement === document.body);
      expect(inside || onBody, `focus escaped the dialog after ${i + 1} Tab presses`).toBe(true);
    }

    // A toast raised from inside the dialog shows above it and can be used (not inert).
    await dialog.getByRole('button', { name: 'Copy link' }).click();
    const copied = page.getByRole('status').filter({ hasText: 'Link copied to clipboard' });
    await copied.waitFor();
    expect(await copied.evaluate((el) => Boolean(el.closest('dialog[open]')))).toBe(true);
    await copied.getByRole('button', { name: 'Dismiss notification' }).click();
    await copied.waitFor({ state: 'detached' });

    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await focusedText(page)).toBe('Open dialog');

    // The close button and a click on the backdrop close it too.
    await opener.click();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await dialog.waitFor({ state: 'detached' });
    await opener.click();
    await dialog.waitFor();
    await page.mouse.click(5, 5);
    await dialog.waitFor({ state: 'detached' });
    expect(problems.all()).toEqual([]);
  });

  it('confirm dialog: Cancel has focus first, so Enter does not confirm by accident', async () => {
    const { page, problems } = await openHarness();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete email' });
    await dialog.waitFor();
    expect(await dialog.getByText('Are you sure you want to delete this email?').isVisible()).toBe(true);
    expect(await focusedText(page)).toBe('Cancel');
    await page.keyboard.press('Enter');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByTestId('confirmed').textContent()).toBe('0');

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByTestId('confirmed').textContent()).toBe('1');
    expect(problems.all()).toEqual([]);
  });

  it('dropdown menu: opens from the keyboard, arrows and letters move, disabled items are skipped', async () => {
    const { page, problems } = await openHarness();
    const trigger = page.getByRole('button', { name: 'Account menu' });
    expect(await trigger.getAttribute('aria-haspopup')).toBe('menu');
    expect(await trigger.getAttribute('aria-expanded')).toBe('false');

    await trigger.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu');
    await menu.waitFor();
    expect(await trigger.getAttribute('aria-expanded')).toBe('true');
    expect(await focusedText(page)).toBe('Account');
    await page.keyboard.press('ArrowDown');
    expect(await focusedText(page)).toBe('Plan');
    await page.keyboard.press('ArrowDown'); // Billing is disabled
    expect(await focusedText(page)).toBe('Sign Out');
    await page.keyboard.press('ArrowDown'); // wraps
    expect(await focusedText(page)).toBe('Account');
    await page.keyboard.press('End');
    expect(await focusedText(page)).toBe('Sign Out');
    await page.keyboard.press('Home');
    await page.keyboard.press('p');
    expect(await focusedText(page)).toBe('Plan');

    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(await focusedText(page)).toBe('Menu');

    await page.keyboard.press('ArrowUp'); // opens on the last item
    await menu.waitFor();
    expect(await focusedText(page)).toBe('Sign Out');
    await page.keyboard.press('Enter');
    await menu.waitFor({ state: 'detached' });
    expect(await page.getByTestId('selected').textContent()).toBe('Sign Out');

    await trigger.click();
    await menu.getByRole('menuitem', { name: 'Billing' }).click({ force: true });
    expect(await page.getByTestId('selected').textContent()).toBe('Sign Out');
    await page.mouse.click(5, 5); // outside
    await menu.waitFor({ state: 'detached' });
    expect(problems.all()).toEqual([]);
  });

  it('tabs: arrow keys select, only the active tab is tabbable, the panel is labelled by its tab', async () => {
    const { page, problems } = await openHarness();
    const preview = page.getByRole('tab', { name: 'Preview' });
    expect(await preview.getAttribute('aria-selected')).toBe('true');
    expect(await page.getByRole('tab', { name: 'HTML Source' }).getAttribute('tabindex')).toBe('-1');
    await preview.focus();
    await page.keyboard.press('ArrowRight');
    const source = page.getByRole('tab', { name: 'HTML Source' });
    expect(await source.getAttribute('aria-selected')).toBe('true');
    expect(await page.getByRole('tabpanel', { name: 'HTML Source' }).textContent()).toBe('Source panel');
    await page.keyboard.press('End');
    expect(await page.getByRole('tabpanel', { name: 'Embed' }).textContent()).toBe('Coming soon');
    await page.keyboard.press('ArrowRight'); // wraps to the first
    expect(await preview.getAttribute('aria-selected')).toBe('true');
    expect(problems.all()).toEqual([]);
  });

  it('switch, field and busy button expose their state', async () => {
    const { page, problems } = await openHarness();
    const toggle = page.getByRole('switch', { name: 'Login alerts' });
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    await page.keyboard.press('Space');
    expect(await toggle.getAttribute('aria-checked')).toBe('false');

    const name = page.getByRole('textbox', { name: 'Name' });
    await name.fill('ab');
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    const describedBy = (await name.getAttribute('aria-describedby'))!.split(' ');
    const texts = await Promise.all(describedBy.map((id) => page.locator(`#${id}`).textContent()));
    expect(texts).toEqual(['Your name', 'At least 3 characters']);
    await name.fill('abc');
    expect(await name.getAttribute('aria-invalid')).toBeNull();

    const save = page.getByRole('button', { name: 'Save' });
    await save.click();
    expect(await save.getAttribute('aria-busy')).toBe('true');
    expect(await save.isDisabled()).toBe(true);

    const bar = page.getByRole('progressbar', { name: 'Monthly usage' });
    expect(await bar.getAttribute('aria-valuenow')).toBe('9');
    expect(await bar.getAttribute('aria-valuetext')).toBe('9 of 10 emails used');
    expect(await bar.getAttribute('data-color')).toBe('yellow');
    expect(problems.all()).toEqual([]);
  });

  it('skeleton: pulses only when the system has not asked for reduced motion', async () => {
    // Contexts ask for reduced motion by default (tests/support/browser.ts).
    const { page, problems } = await openHarness();
    const block = page.getByTestId('skeleton').locator('span');
    const animation = () => block.evaluate((el) => getComputedStyle(el).animationName);
    expect(await animation()).toBe('none');
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    expect(await animation()).toBe('pulse');
    expect(problems.all()).toEqual([]);
  });

  it('toasts: success is a status, error is an alert; both can be dismissed and time out', async () => {
    const { page, problems } = await openHarness();
    await page.getByRole('button', { name: 'Success toast' }).click();
    const success = page.getByRole('status').filter({ hasText: 'Email sent successfully!' });
    await success.waitFor();
    await success.getByRole('button', { name: 'Dismiss notification' }).click();
    await success.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Error toast' }).click();
    const failure = page.getByRole('alert').filter({ hasText: 'Failed to send email' });
    await failure.waitFor();
    expect(await failure.textContent()).toContain('Unknown error');
    await page.mouse.move(5, 5); // not hovering: the 600 ms timer runs out
    await failure.waitFor({ state: 'detached', timeout: 5000 });
    expect(problems.all()).toEqual([]);
  });
});
