import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { shot } from '../support/screenshots.ts';
import { createUser, type TestUser } from '../support/users.ts';

/*
 * The pre-send checklist on screen: in the composer beside the preview (summary by the Send
 * button, expandable findings, a confirmation before sending with errors), on the detail page of
 * the sent email, and the Target Clients setting. Nothing here leaves loopback: the only image is
 * inline data, and no link is followed.
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { FREE_SENDS_PER_MINUTE: '100', PRO_SENDS_PER_MINUTE: '100' } });
  // Start the transform processes before the first page waits for them.
  const warm = await createUser(server.db, { plan: 'pro' });
  const res = await fetch(`${server.baseUrl}/api/email/preview`, {
    method: 'POST',
    headers: { ...warm.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ html: '<p>Warm</p>' }),
  });
  expect(res.status).toBe(200);
});
afterAll(async () => server?.close());

// Two errors (an image without alt, embedded as base64), warnings (no lang, no title, a layout table
// without a role, no preheader, no unsubscribe link).
const FLAWED = `<table><tr><td><h1>Spring sale</h1>
<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="1">
<p><a href="https://shop.example/sale">Shop the sale</a></p></td></tr></table>`;

async function openComposer(
  u: TestUser,
  viewport = { width: 1280, height: 900 },
  colorScheme: 'light' | 'dark' = 'light',
  html = FLAWED,
): Promise<Page> {
  const page = await browser.pageWith(server, u, { viewport, colorScheme });
  await page.goto('/app/send');
  await page.getByRole('heading', { level: 1, name: 'Send Test Email' }).waitFor();
  await page.locator('.cm-content').waitFor();
  await page.locator('.cm-content').click();
  await page.keyboard.insertText(html);
  await page.getByTestId('checklist-summary').first().waitFor({ timeout: 30_000 });
  return page;
}

describe('the checklist in the composer', () => {
  it('summarises by the Send button, opens its findings, and asks once before sending with errors', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await openComposer(u);
    const summary = page.getByTestId('checklist-summary').first();
    await expect.poll(() => summary.textContent()).toMatch(/^2 errors, \d+ warnings$/);

    // The summary opens the Checks tab.
    await page.getByRole('button', { name: /^Checklist: 2 errors/ }).click();
    const images = page.locator('[data-check="images"]');
    await images.waitFor();
    expect(await images.getAttribute('data-status')).toBe('error');
    // An error check is open already; a warning opens on click.
    await expect.poll(() => images.locator('[data-severity="error"]').count()).toBe(2);
    const a11y = page.locator('[data-check="accessibility"]');
    const toggle = a11y.locator('button[aria-expanded]');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    await a11y.getByText('A layout table has no role="presentation"', { exact: false }).waitFor();
    await a11y.getByText('Line 1', { exact: true }).first().waitFor();
    await page.getByRole('button', { name: 'Check Links' }).waitFor();
    // Without Inline CSS the lines are the editor's: a finding's line moves the cursor there.
    await images.getByRole('button', { name: 'Line 2' }).first().click();
    await expect.poll(() => page.locator('.cm-activeLine').textContent()).toContain('<img');

    // Sending with errors asks once, then sends.
    await page.getByLabel('To', { exact: true }).fill('client@example.com');
    await page.getByRole('button', { name: 'Send Test Email' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send With Errors?' });
    await dialog.waitFor();
    await dialog.getByText('The checklist found 2 errors', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Send Anyway' }).click();
    await page.getByText('Email sent successfully!').waitFor();

    // A Pro user lands on the detail page, which shows the stored checklist.
    await page.waitForURL(/\/app\/email\/[0-9a-f-]+$/, { timeout: 15_000 });
    const stored = page
      .getByRole('region', { name: 'Pre-Send Checklist' })
      .or(page.locator('section[aria-labelledby="checklist-heading"]'));
    await stored.getByTestId('checklist').waitFor();
    await expect.poll(() => stored.getByTestId('checklist-summary').textContent()).toMatch(/^2 errors/);
    expect(await stored.locator('[data-check="images"]').getAttribute('data-status')).toBe('error');
  });

  it('asks about what is sent, not the checklist of a moment ago: errors typed just before Ctrl+Enter', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const clean =
      '<!DOCTYPE html><html lang="en"><head><title>Race</title></head><body><p>Hello</p></body></html>';
    const page = await openComposer(u, undefined, undefined, clean);
    await expect
      .poll(() => page.getByTestId('checklist-summary').first().textContent())
      .toMatch(/^\d+ warnings?$/);
    await page.getByLabel('To', { exact: true }).fill('client@example.com');
    // Two errors added, and sent at once: the panel's checklist is still the clean one.
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('<p><a href="">Read the full story</a></p>');
    await page.keyboard.press('Control+Enter');
    const dialog = page.getByRole('dialog', { name: 'Send With Errors?' });
    await dialog.waitFor();
    await dialog.getByText('The checklist found 1 error', { exact: false }).waitFor();
    await dialog.getByRole('button', { name: 'Review Checks' }).click();
    const sent = await server.db.selectFrom('emails').select('id').where('user_id', '=', u.user.id).execute();
    expect(sent).toEqual([]);
  });

  it('cancelling the confirmation sends nothing and shows the checks', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await openComposer(u);
    await page.getByLabel('To', { exact: true }).fill('client@example.com');
    await page.getByRole('button', { name: 'Send Test Email' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send With Errors?' });
    await dialog.getByRole('button', { name: 'Review Checks' }).click();
    await expect.poll(() => dialog.count()).toBe(0);
    expect(await page.getByRole('tab', { name: /Checks/ }).getAttribute('aria-selected')).toBe('true');
    const sent = await server.db.selectFrom('emails').select('id').where('user_id', '=', u.user.id).execute();
    expect(sent).toEqual([]);
  });
});

describe('Target Clients on the account page', () => {
  it('saves the chosen clients', async () => {
    const u = await createUser(server.db);
    const page = await browser.pageWith(server, u, { viewport: { width: 1280, height: 900 } });
    await page.goto('/app/account');
    const card = page.getByRole('region', { name: 'Target Clients' });
    await card.waitFor();
    const outlook = card.getByLabel('Outlook (Windows, classic)');
    expect(await outlook.isChecked()).toBe(true);
    await outlook.uncheck();
    await card.getByRole('button', { name: 'Save Target Clients' }).click();
    await page.getByText('Target Clients Saved').waitFor();
    const row = await server.db
      .selectFrom('users')
      .select('target_clients')
      .where('id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    expect(row.target_clients).not.toContain('outlook-windows');
    expect(row.target_clients).toContain('gmail-web');
  });
});

describe('the same problem many times', () => {
  it('lists three alike and one that counts the rest, whose line the editor jumps to', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const images = Array.from(
      { length: 12 },
      (_, i) => `<p><img src="https://cdn.example.com/${i}.png" width="10"></p>`,
    );
    const page = await openComposer(u, undefined, 'light', `<h1>Gallery</h1>\n${images.join('\n')}`);
    await page.getByRole('tab', { name: /Checks/ }).click();
    const check = page.locator('[data-check="images"]');
    await check.waitFor();
    // An error check is open already.
    expect(await check.locator('button[aria-expanded]').getAttribute('aria-expanded')).toBe('true');
    const noAlt = check.getByText('An image has no alt attribute', { exact: false });
    await expect.poll(() => noAlt.count()).toBe(3);
    const fold = check.locator('li', { hasText: 'The same in 9 more places (lines 5, 6, 7, 8, 9, …).' });
    await fold.waitFor();
    await shot(check, 'checklist-folded-desktop-light');
    await fold.getByRole('button', { name: 'Line 5' }).click();
    await expect.poll(() => page.locator('.cm-activeLine').textContent()).toContain('3.png');
  });
});

describe('screens', () => {
  for (const [device, viewport] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 375, height: 800 }],
  ] as const) {
    for (const colorScheme of ['light', 'dark'] as const) {
      it(`${device}, ${colorScheme}`, async () => {
        const u = await createUser(server.db, { plan: 'pro' });
        const page = await openComposer(u, viewport, colorScheme);
        await page.getByRole('tab', { name: /Checks/ }).click();
        await page.locator('[data-check="images"]').waitFor();
        await page.locator('[data-check="accessibility"] button[aria-expanded]').click();
        await shot(page, `checklist-composer-${device}-${colorScheme}`);
        const sent = await fetch(`${server.baseUrl}/api/email/send`, {
          method: 'POST',
          headers: { ...u.headers, 'content-type': 'application/json' },
          body: JSON.stringify({ to: 'client@example.com', subject: 'Spring sale', html: FLAWED }),
        });
        expect(sent.status).toBe(200);
        await page.goto(`/app/email/${(await sent.json()).id}`);
        const stored = page.locator('section[aria-labelledby="checklist-heading"]');
        await stored.getByTestId('checklist').waitFor();
        await shot(stored, `checklist-detail-${device}-${colorScheme}`);
        await page.goto('/app/account');
        await page.getByRole('region', { name: 'Target Clients' }).getByRole('checkbox').first().waitFor();
        await shot(
          page.getByRole('region', { name: 'Target Clients' }),
          `checklist-account-${device}-${colorScheme}`,
        );
      });
    }
  }
});
