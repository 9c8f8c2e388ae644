import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { listenDuringTest, setupBrowser, watchClipboard, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { intercept } from '../support/routes.ts';
import { shot } from '../support/screenshots.ts';
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

/** The question asked before the switch turns sharing off, answered with `answer`. */
async function answerTurnOff(page: Page, answer: 'Turn Sharing Off' | 'Cancel') {
  const confirm = page.getByRole('dialog', { name: 'Turn Sharing Off?' });
  await confirm.getByRole('button', { name: answer }).click();
  if (answer === 'Cancel') await confirm.waitFor({ state: 'detached' });
}

async function shareByApi(u: TestUser, id: string): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/email/${id}/share`, { method: 'POST', headers: u.headers });
  expect(res.status).toBe(200);
  return ((await res.json()) as { email: { publicSlug: string } }).email.publicSlug;
}

/** The share calls (`POST /api/email/{id}/share`) the page makes from now until the test ends. */
function watchShareCalls(page: Page, id: string) {
  const calls: Array<{ method: string; body: string | null }> = [];
  listenDuringTest(page, 'request', (req) => {
    if (new URL(req.url()).pathname === `/api/email/${id}/share`)
      calls.push({ method: req.method(), body: req.postData() });
  });
  return calls;
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
    await answerTurnOff(page, 'Turn Sharing Off');
    await failed.waitFor();
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    expect(await dialog.getByRole('textbox', { name: 'Public link' }).count()).toBe(1);
  });

  it('the switch keeps the keyboard focus while the link is made', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u, 'Shared from the keyboard');
    const page = await openDetail(u, id);
    const calls = watchShareCalls(page, id);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await intercept(page, `**/api/email/${id}/share`, async (route) => {
      await held;
      return route.fallback();
    });
    const { dialog, toggle } = await openShare(page);
    await toggle.focus();
    await page.keyboard.press('Space');
    await expect.poll(() => toggle.getAttribute('aria-busy')).toBe('true');
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    expect(await toggle.evaluate((el) => el === document.activeElement)).toBe(true);
    // Pressed again while it saves: nothing more is asked of the server.
    await page.keyboard.press('Space');
    release();
    await toast(page, 'success', 'Email shared successfully!').waitFor();
    await dialog.getByRole('textbox', { name: 'Public link' }).waitFor();
    await expect.poll(() => toggle.getAttribute('aria-busy')).toBeNull();
    expect(await toggle.evaluate((el) => el === document.activeElement)).toBe(true);
    expect(calls.map((c) => c.method)).toEqual(['POST']);
    // The next Space asks before turning it off.
    await page.keyboard.press('Space');
    await page.getByRole('dialog', { name: 'Turn Sharing Off?' }).waitFor();
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
    await answerTurnOff(page, 'Turn Sharing Off');
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

  it('turning sharing off asks first, saying the link stops working; Cancel keeps it', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u, 'Asked before off');
    const slug = await shareByApi(u, id);
    const page = await openDetail(u, id);
    const calls = watchShareCalls(page, id);
    const { dialog, toggle } = await openShare(page);
    await toggle.click();
    const confirm = page.getByRole('dialog', { name: 'Turn Sharing Off?' });
    await confirm.waitFor();
    const said = await confirm.innerText();
    expect(said).toContain('stops working');
    expect(said).toContain('new link');
    await shot(page, 'share-turn-off-confirm-1280-light');
    await answerTurnOff(page, 'Cancel');
    expect(await toggle.getAttribute('aria-checked')).toBe('true');
    expect(await dialog.isVisible()).toBe(true);
    expect(calls).toEqual([]);
    const live = await fetch(`${server.baseUrl}/api/email/public/${slug}`);
    expect(live.status).toBe(200);

    // Escape is a Cancel too, and closes only the question.
    await toggle.click();
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(await dialog.isVisible()).toBe(true);
    expect(calls).toEqual([]);

    await toggle.click();
    await answerTurnOff(page, 'Turn Sharing Off');
    await toast(page, 'success', 'Sharing disabled').waitFor();
    await confirm.waitFor({ state: 'detached' });
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    expect(calls.map((c) => c.method)).toEqual(['DELETE']);
    expect((await fetch(`${server.baseUrl}/api/email/public/${slug}`)).status).toBe(404);
  });

  it('Escape in the Rotate Link? question closes only the question, not the Share Link dialog', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u, 'Nested escape');
    await shareByApi(u, id);
    const page = await openDetail(u, id);
    const { dialog } = await openShare(page);
    await dialog.getByRole('button', { name: 'Rotate Link' }).click();
    const confirm = page.getByRole('dialog', { name: 'Rotate Link?' });
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    expect(await dialog.isVisible()).toBe(true);
    expect(await page.locator('dialog[open]').count()).toBe(1);
    // Focus went back into the Share Link dialog, so the next Escape closes it.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    expect(await page.locator('dialog[open]').count()).toBe(0);
  });

  it('arrow keys move through the expiry choices and save once, with one toast', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u, 'Arrow keys');
    await shareByApi(u, id);
    const page = await openDetail(u, id, { before: (p) => p.clock.install() });
    const calls = watchShareCalls(page, id);
    const { dialog } = await openShare(page);
    const choice = (name: string) => dialog.getByRole('radio', { name, exact: true });
    await choice('Never').focus();
    // The page's clock stands still while the keys go in, however slowly a busy machine sends
    // them: the save waits for a pause in the keys (share-settings.tsx), not for the test's pace.
    await page.clock.pauseAt((await page.evaluate(() => Date.now())) + 1000);
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowLeft');
    // The selection moves at once: Never → 30 → 7 → 1 Day.
    expect(await choice('1 Day').getAttribute('aria-checked')).toBe('true');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('1 Day');
    expect(calls).toEqual([]);
    await page.clock.resume();
    const updated = toast(page, 'success', 'Sharing updated');
    await updated.waitFor();
    expect(await updated.innerText()).toContain('The link expires in 1 day');
    await expect.poll(() => dialog.getByTestId('share-expiry').innerText()).toMatch(/^Expires /);
    await page.waitForTimeout(1500); // nothing else follows
    expect(calls).toEqual([{ method: 'POST', body: JSON.stringify({ expiresInDays: 1 }) }]);
    expect(await updated.count()).toBe(1);
    const row = await server.db
      .selectFrom('email_shares')
      .select('expires_in_days')
      .where('thread_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.expires_in_days).toBe(1);

    // Back and forth to where it was: nothing to save.
    await choice('1 Day').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowLeft');
    await page.waitForTimeout(1500);
    expect(calls).toHaveLength(1);

    // A click saves too, once.
    await choice('Never').click();
    await expect.poll(() => calls.length).toBe(2);
    await toast(page, 'success', 'Sharing updated').filter({ hasText: 'never expires' }).waitFor();
    expect(calls[1]!.body).toBe(JSON.stringify({ expiresInDays: null }));
  });

  it('a choice made just before the dialog closes is still saved', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u, 'Closed quickly');
    await shareByApi(u, id);
    const page = await openDetail(u, id);
    const calls = watchShareCalls(page, id);
    const { dialog } = await openShare(page);
    await dialog.getByRole('radio', { name: '7 Days' }).click();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await toast(page, 'success', 'Sharing updated').waitFor();
    expect(calls).toEqual([{ method: 'POST', body: JSON.stringify({ expiresInDays: 7 }) }]);
  });

  it('the reviews panel words the views as the dialog does', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u, 'Viewed once');
    const slug = await shareByApi(u, id);
    const page = await openDetail(u, id);
    const panel = page.getByTestId('reviews-panel');
    await panel.waitFor();
    expect(await panel.innerText()).toContain('0 views · not opened yet');
    expect((await fetch(`${server.baseUrl}/api/email/public/${slug}`)).status).toBe(200);
    await page.reload();
    await expect.poll(() => panel.innerText()).toContain('1 view · last viewed just now');
    const { dialog } = await openShare(page);
    expect(await dialog.getByTestId('share-stats').innerText()).toBe('1 view · last viewed just now');
  });

  it('looks right at 1280 and 375 px, light and dark, with the turn-off question', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u, 'Screens');
    await shareByApi(u, id);
    // A protected link that expired: the dialog says what turning sharing on makes.
    const { id: expiredId } = await seed(u, 'Expired screens');
    const set = await fetch(`${server.baseUrl}/api/email/${expiredId}/share`, {
      method: 'POST',
      headers: { ...u.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ expiresInDays: 30, password: 'client secret' }),
    });
    expect(set.status).toBe(200);
    await server.db
      .updateTable('email_shares')
      .set({ expires_at: new Date(Date.now() - 60_000) })
      .where('thread_id', '=', expiredId)
      .execute();
    for (const [name, view] of [
      ['1280-light', { viewport: { width: 1280, height: 900 }, colorScheme: 'light' }],
      ['1280-dark', { viewport: { width: 1280, height: 900 }, colorScheme: 'dark' }],
      ['375-light', { viewport: { width: 375, height: 800 }, colorScheme: 'light' }],
      ['375-dark', { viewport: { width: 375, height: 800 }, colorScheme: 'dark' }],
    ] as const) {
      const page = await browser.sharedPage(server, u, view);
      const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });
      await page.goto(`/app/email/${id}`);
      await page
        .getByTestId('reviews-panel')
        .getByText(/views? ·/)
        .waitFor();
      await shot(page.getByTestId('reviews-panel'), `owner-reviews-panel-${name}`);
      const { dialog, toggle } = await openShare(page);
      await dialog.getByRole('radio', { name: '30 Days' }).waitFor();
      await shot(page, `share-dialog-${name}`);
      await toggle.click();
      await page.getByRole('dialog', { name: 'Turn Sharing Off?' }).waitFor();
      await shot(page, `share-turn-off-${name}`);
      await answerTurnOff(page, 'Cancel');
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);

      await page.goto(`/app/email/${expiredId}`);
      const expired = await openShare(page);
      await expired.dialog.getByTestId('share-expired').getByText('Same password as before').waitFor();
      await shot(page, `share-dialog-expired-${name}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
      expect(problems.all()).toEqual([]);
    }
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
