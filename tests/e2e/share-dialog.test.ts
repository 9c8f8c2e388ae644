import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { setupBrowser, watchClipboard } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { toast } from '../support/toasts.ts';
import { createUser, type TestUser } from '../support/users.ts';

/** The detail page's Share Link dialog and its failure paths (docs/spec.md §2, §4, §8, §9). */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

async function seed(u: TestUser, subject = 'Shareable') {
  return insertEmail(server.db, {
    userId: u.user.id,
    to: 'client@example.com',
    subject,
    html: `<h1>${subject}</h1>`,
    inlineCss: false,
    createdAt: new Date(),
  });
}

async function openDetail(
  u: TestUser,
  id: string,
  options: { clipboard?: boolean; before?: (page: Page) => Promise<unknown> } = {},
) {
  // The clipboard's permissions and an installed clock are the context's and an init script: a
  // page of its own. Otherwise the file's shared page.
  const page =
    options.clipboard || options.before
      ? await browser.signedInPage(server, u, {
          permissions: options.clipboard ? ['clipboard-write'] : [],
        })
      : await browser.sharedPage(server, u);
  await options.before?.(page);
  await page.goto(`/app/email/${id}`);
  return page;
}

const dialogOf = (page: Page) => page.getByRole('dialog', { name: 'Share Link' });

async function openShare(page: Page) {
  await page.getByRole('button', { name: 'Share Link' }).click();
  const dialog = dialogOf(page);
  await dialog.waitFor();
  return { dialog, toggle: dialog.getByRole('switch', { name: 'Share publicly' }) };
}

describe('Share Link dialog', () => {
  it('Copy link shows Copied! for 2 seconds; Embed and Custom Link say Coming soon', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u);
    let clipboard: Awaited<ReturnType<typeof watchClipboard>> | undefined;
    const page = await openDetail(u, id, {
      clipboard: true,
      before: async (p) => {
        await p.clock.install();
        clipboard = await watchClipboard(p);
      },
    });
    const { dialog, toggle } = await openShare(page);
    await toggle.click();
    const link = dialog.getByRole('textbox', { name: 'Public link' });
    await link.waitFor();
    const url = await link.inputValue();

    // Stop the page's clock first, so the 2-second timer starts at a known instant.
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
    await dialog.getByRole('button', { name: 'Copy link' }).click();
    await dialog.getByRole('button', { name: 'Copied!' }).waitFor();
    await toast(page, 'success', 'Link copied to clipboard').waitFor();
    await page.clock.runFor(1900);
    expect(await dialog.getByRole('button', { name: 'Copied!' }).count()).toBe(1);
    await page.clock.runFor(200);
    await dialog.getByRole('button', { name: 'Copy link' }).waitFor();
    await page.clock.resume();
    expect(await clipboard!.lastCopied()).toBe(url);

    const open = dialog.getByRole('link', { name: 'Open link' });
    expect(await open.getAttribute('href')).toBe(url);
    expect(await open.getAttribute('target')).toBe('_blank');
    expect(await open.getAttribute('rel')).toContain('noopener');

    for (const tab of ['Embed', 'Custom Link']) {
      await dialog.getByRole('tab', { name: tab }).click();
      await dialog.getByRole('tabpanel').getByText('Coming soon', { exact: true }).waitFor();
    }
    await dialog.getByRole('tab', { name: 'Public Link' }).click();
    expect(await dialog.getByRole('textbox', { name: 'Public link' }).inputValue()).toBe(url);

    // Closing and opening again shows the same link; the page says Public.
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.getByTestId('public-badge').waitFor();
    await openShare(page);
    expect(await dialogOf(page).getByRole('textbox', { name: 'Public link' }).inputValue()).toBe(url);
  });

  it('says Failed to copy link when the clipboard refuses', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u);
    await fetch(`${server.baseUrl}/api/email/${id}/share`, { method: 'POST', headers: u.headers });
    const page = await openDetail(u, id, {
      before: (p) =>
        p.addInitScript(() => {
          if (window.top !== window) return;
          Object.defineProperty(Navigator.prototype, 'clipboard', {
            get: () => ({
              writeText: () =>
                Promise.reject(new DOMException('Write permission denied.', 'NotAllowedError')),
            }),
          });
        }),
    });
    const { dialog } = await openShare(page);
    await dialog.getByRole('button', { name: 'Copy link' }).click();
    const failed = toast(page, 'error', 'Failed to copy link');
    await failed.waitFor();
    expect(await failed.innerText()).toContain('Write permission denied.');
    expect(await dialog.getByRole('button', { name: 'Copied!' }).count()).toBe(0);
  });

  it('says Failed to update sharing when sharing or unsharing fails, and the switch stays put', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u);
    const page = await openDetail(u, id);
    let fail = true;
    await page.route(`**/api/email/${id}/share`, (route) =>
      fail ? route.fulfill({ status: 500, json: { error: 'Something went wrong' } }) : route.fallback(),
    );
    const { dialog, toggle } = await openShare(page);
    await toggle.click();
    const failed = toast(page, 'error', 'Failed to update sharing');
    await failed.waitFor();
    expect(await failed.innerText()).toContain('Something went wrong');
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    expect(await dialog.getByRole('textbox', { name: 'Public link' }).count()).toBe(0);
    await failed.getByRole('button', { name: 'Dismiss notification' }).click();
    await failed.waitFor({ state: 'detached' });

    fail = false;
    await toggle.click();
    await toast(page, 'success', 'Email shared successfully!').waitFor();
    expect(await toggle.getAttribute('aria-checked')).toBe('true');

    fail = true;
    await toggle.click();
    await failed.waitFor();
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    expect(await dialog.getByRole('textbox', { name: 'Public link' }).count()).toBe(1);
  });

  it('sharing again after unsharing mints a new link; the old one stays dead', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u, 'Reshared');
    const page = await openDetail(u, id);
    const { dialog, toggle } = await openShare(page);
    await toggle.click();
    const link = dialog.getByRole('textbox', { name: 'Public link' });
    await link.waitFor();
    const first = await link.inputValue();
    await toggle.click();
    await toast(page, 'success', 'Sharing disabled').waitFor();
    await toggle.click();
    await expect.poll(() => link.inputValue().catch(() => '')).toMatch(/\/s\//);
    const second = await link.inputValue();
    expect(second).not.toBe(first);

    const visitor = await browser.newPage();
    await visitor.goto(first);
    await visitor.getByRole('heading', { level: 1, name: 'Email Not Found' }).waitFor();
    await visitor.goto(second);
    await visitor.getByRole('heading', { level: 1, name: 'Reshared' }).waitFor();
  });

  it('a free user opening their own email sees sharing as a Pro feature', async () => {
    const u = await createUser(server.db, { plan: 'free' });
    const { id } = await seed(u, 'Free email');
    const page = await openDetail(u, id);
    await page.getByRole('heading', { level: 1, name: 'Free email' }).waitFor();
    const { dialog, toggle } = await openShare(page);
    expect(await toggle.isDisabled()).toBe(true);
    await dialog.getByText('Public share links are a Pro feature.').waitFor();
    expect(await dialog.getByRole('link', { name: 'Upgrade to Pro' }).getAttribute('href')).toBe('/plan');
  });
});

describe('detail page states', () => {
  it('an unknown id, or another user’s email, shows Email not found', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const other = await createUser(server.db, { plan: 'pro' });
    const { id: theirs } = await seed(other, 'Not yours');
    for (const id of ['00000000-0000-4000-8000-000000000000', theirs, 'not-a-uuid']) {
      const page = await openDetail(u, id);
      await page.getByRole('heading', { level: 1, name: 'Email not found' }).waitFor();
      expect(await page.title()).toBe('Email not found · Proofmail');
      expect(await page.getByText('Not yours').count()).toBe(0);
      await page.getByRole('link', { name: 'Back to History' }).click();
      await page.waitForURL('**/app/history');
    }
  });

  it('a failed load says Failed to load email and goes back to the history', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u, 'Unlucky');
    const page = await openDetail(u, id, {
      before: (p) =>
        p.route(`**/api/email/${id}`, (route) => route.fulfill({ status: 500, json: { error: 'Boom' } })),
    });
    const failed = toast(page, 'error', 'Failed to load email');
    await failed.waitFor({ timeout: 20_000 }); // after the client's retries
    expect(await failed.innerText()).toContain('Boom');
    await page.waitForURL('**/app/history');
    await page.getByRole('heading', { level: 1, name: 'Emails' }).waitFor();
    await page.getByTestId('email-row').filter({ hasText: 'Unlucky' }).waitFor();
  });
});
