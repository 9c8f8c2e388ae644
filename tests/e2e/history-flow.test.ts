import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { enqueueMail } from '../../src/server/mail/outbox.ts';
import { setupBrowser, watchClipboard, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { toast } from '../support/toasts.ts';
import { createUser } from '../support/users.ts';

/*
 * The whole history journey in the browser: send → the Pro redirect to the detail page after
 * 1 second → history (search, Load More, relative times) → detail (preview, source, copy) → share
 * → the link in a fresh, signed-out browser → unshare → Email Not Found → delete → gone.
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const rows = (page: Page) => page.getByTestId('email-row');

describe('send → history → detail → share → unshare → delete', () => {
  it('walks the whole journey as a Pro user', { timeout: 120_000 }, async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    // 24 older emails (so the history has a second page) at known ages.
    const ages: Array<[string, number]> = [
      ['Five minutes old', 5 * MINUTE],
      ['Three hours old', 3 * HOUR + 5 * MINUTE],
      ['Two days old', 2 * DAY + HOUR],
      ['Forty days old', 40 * DAY],
    ];
    const now = Date.now();
    for (const [subject, age] of ages) {
      await insertEmail(server.db, {
        userId: u.user.id,
        to: 'archive@example.com',
        subject,
        html: `<p>${subject}</p>`,
        inlineCss: false,
        createdAt: new Date(now - age),
      });
    }
    for (let i = 0; i < 20; i++) {
      await insertEmail(server.db, {
        userId: u.user.id,
        to: `bulk${i}@example.com`,
        subject: `Bulk ${i}`,
        html: `<p>bulk ${i}</p>`,
        inlineCss: false,
        createdAt: new Date(now - 50 * DAY - i * HOUR),
      });
    }

    // A context of its own: clipboard permissions and an init script of the test's.
    const context = await browser.signedInContext(server, u, {
      permissions: ['clipboard-write'],
    });
    const page = await context.newPage();
    const clipboard = await watchClipboard(page);
    // The test's own init scripts are refused inside the sandboxed frame (which is the point).
    const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });
    // Page-side timestamps of the send's answer and of the move to the detail page, so the
    // 1-second delay is measured in the page, not through the test runner's latency.
    await page.addInitScript(() => {
      if (window.top !== window) return;
      const marks: Record<string, number> = {};
      Object.assign(window, { __marks: marks });
      const fetchOriginal = window.fetch.bind(window);
      window.fetch = async (...args: Parameters<typeof fetch>) => {
        const res = await fetchOriginal(...args);
        if (String(args[0]).endsWith('/api/email/send')) marks.sent = performance.now();
        return res;
      };
      const push = history.pushState.bind(history);
      history.pushState = (...args: Parameters<History['pushState']>) => {
        push(...args);
        if (marks.detail === undefined && location.pathname.startsWith('/app/email/'))
          marks.detail = performance.now();
      };
    });

    // --- send through the composer; a Pro send lands on the detail page after 1 second ---
    await page.goto('/app/send');
    await page.getByRole('heading', { level: 1, name: 'Send Test Email' }).waitFor();
    await page.getByLabel('To', { exact: true }).fill('client@example.com, boss@example.com');
    await page.getByLabel('Subject').fill('Spring Flamingo sale');
    const html =
      '<h1 style="color:#0a7">Spring sale</h1>\n<p>Flamingo prices, <a href="https://example.com">shop now</a>.</p>';
    await page.locator('.cm-content').click();
    await page.keyboard.insertText(html);
    await page.getByRole('button', { name: 'Send Test Email' }).click();
    await toast(page, 'success', 'Email sent successfully!').waitFor();
    await page.waitForURL(/\/app\/email\/[0-9a-f-]{36}$/);
    const marks = await page.evaluate(
      () => (window as unknown as { __marks: { sent: number; detail: number } }).__marks,
    );
    const delay = marks.detail - marks.sent;
    expect(delay).toBeGreaterThanOrEqual(990); // the timer starts after the answer: never early
    expect(delay).toBeLessThan(5000);
    const id = new URL(page.url()).pathname.split('/').pop()!;

    // --- detail: facts, preview, source, copy ---
    await page.getByRole('heading', { level: 1, name: 'Spring Flamingo sale' }).waitFor();
    expect(await page.getByTestId('email-to').innerText()).toBe('client@example.com, boss@example.com');
    // Each address wraps before its "@" or a dot, never inside a word (docs/copy-style.md).
    for (const id of ['email-to', 'preview-to'])
      expect(await page.getByTestId(id).locator('[data-email-address]').count()).toBe(2);
    expect(await page.getByTestId('email-sent-at').getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(await page.getByTestId('public-badge').count()).toBe(0);
    expect(await page.getByTestId('delivery-state').innerText()).toBe('Queued'); // no worker in this server
    const preview = page.frameLocator('iframe[data-testid="email-frame"]');
    await preview.getByRole('heading', { name: 'Spring sale' }).waitFor();
    expect(await page.getByTestId('preview-subject').innerText()).toBe('Spring Flamingo sale');
    expect(await page.getByTestId('preview-to').innerText()).toContain(
      'client@example.com, boss@example.com',
    );
    // Desktop by default: a reading pane wider than the email's 600 px (docs/decisions/0046-preview-widths.md).
    const frameBox = (await page.locator('iframe[data-testid="email-frame"]').boundingBox())!;
    expect(frameBox.width).toBe(800);
    expect(frameBox.height).toBeGreaterThanOrEqual(800);

    await page.getByRole('tab', { name: 'HTML Source' }).click();
    const source = page.getByRole('textbox', { name: 'HTML Source' });
    expect(await source.inputValue()).toBe(html);
    expect(await source.getAttribute('readonly')).not.toBeNull();
    expect(await source.evaluate((el) => getComputedStyle(el).fontFamily)).toMatch(/mono/i);
    await page.getByRole('button', { name: 'Copy HTML' }).click();
    await toast(page, 'success', 'HTML copied to clipboard').waitFor();
    expect(await clipboard.lastCopied()).toBe(html);
    // The other tabs' copy buttons read alike (docs/copy-style.md): a Title Case button, a toast
    // that is a sentence.
    await page.getByRole('tab', { name: 'Plain Text' }).click();
    await page.getByRole('button', { name: 'Copy Text', exact: true }).click();
    await toast(page, 'success', 'Text copied to clipboard').waitFor();

    // --- history: relative times, Load More past 20, search kept in the URL ---
    await page.getByRole('link', { name: 'Back to History' }).first().click();
    await page.waitForURL('**/app/history');
    await page.getByRole('heading', { level: 1, name: 'Emails' }).waitFor();
    await expect.poll(() => rows(page).count()).toBe(20);
    const rowOf = (subject: string) => rows(page).filter({ hasText: subject });
    expect(await rowOf('Spring Flamingo sale').locator('time').innerText()).toBe('just now');
    expect(await rowOf('Five minutes old').locator('time').innerText()).toBe('5 minutes ago');
    expect(await rowOf('Three hours old').locator('time').innerText()).toBe('3 hours ago');
    expect(await rowOf('Two days old').locator('time').innerText()).toBe('2 days ago');
    const fortyDays = new Intl.DateTimeFormat('en-US', {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      timeZone: 'UTC',
    });
    expect(await rowOf('Forty days old').locator('time').innerText()).toBe(
      fortyDays.format(new Date(now - 40 * DAY)),
    );
    expect(await rowOf('Spring Flamingo sale').getByText('Not Shared').isVisible()).toBe(true);
    expect(await rows(page).first().innerText()).toContain('Spring Flamingo sale'); // newest first

    await page.getByRole('button', { name: 'Load More' }).click();
    await expect.poll(() => rows(page).count()).toBe(25);
    expect(await page.getByRole('button', { name: 'Load More' }).count()).toBe(0);
    expect(await rows(page).last().innerText()).toContain('Bulk 19');

    const search = page.getByRole('searchbox', { name: 'Search emails' });
    await search.fill('flamingo'); // matches the subject and the HTML, case-insensitively
    await page.waitForURL(/\?q=flamingo$/);
    await expect.poll(() => rows(page).count()).toBe(1);
    await page.reload();
    expect(await search.inputValue()).toBe('flamingo');
    await expect.poll(() => rows(page).count()).toBe(1);
    await search.fill('bulk1'); // bulk1, bulk10…bulk19 in the recipients
    await expect.poll(() => rows(page).count()).toBe(11);
    await search.fill('');
    await expect.poll(() => rows(page).count()).toBe(20);
    expect(new URL(page.url()).search).toBe('');

    // --- share from the detail page, open the link signed out ---
    await rowOf('Spring Flamingo sale').click();
    await page.waitForURL(`**/app/email/${id}`);
    await page.getByRole('button', { name: 'Share Link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share Link' });
    const shareSwitch = dialog.getByRole('switch', { name: 'Share publicly' });
    expect(await shareSwitch.getAttribute('aria-checked')).toBe('false');
    await shareSwitch.click();
    const shared = toast(page, 'success', 'Email shared successfully!');
    await shared.waitFor();
    expect(await shared.innerText()).toContain('Public link has been generated');
    expect(await shareSwitch.getAttribute('aria-checked')).toBe('true');
    const linkBox = dialog.getByRole('textbox', { name: 'Public link' });
    const publicUrl = await linkBox.inputValue();
    expect(publicUrl).toMatch(new RegExp(`^${server.baseUrl}/s/[A-Za-z0-9_-]{22,}$`));
    expect(await linkBox.getAttribute('readonly')).not.toBeNull();
    await dialog.getByRole('button', { name: 'Copy link' }).click();
    await dialog.getByRole('button', { name: 'Copied!' }).waitFor();
    await toast(page, 'success', 'Link copied to clipboard').waitFor();
    expect(await clipboard.lastCopied()).toBe(publicUrl);
    await page.keyboard.press('Escape');
    await page.getByTestId('public-badge').waitFor();

    // Another context than the owner's: no token, no cookies.
    const visitor = await browser.sharedPage(server);
    const visitorProblems = watchProblems(visitor);
    await visitor.goto(publicUrl);
    await visitor.getByRole('heading', { level: 1, name: 'Spring Flamingo sale' }).waitFor();
    await visitor
      .frameLocator('iframe[data-testid="email-frame"]')
      .getByRole('heading', { name: 'Spring sale' })
      .waitFor();
    expect(await visitor.evaluate(() => localStorage.getItem('auth_token'))).toBeNull();
    expect(visitorProblems.all()).toEqual([]);

    // History shows it as shared.
    await page.getByRole('link', { name: 'Back to History' }).first().click();
    await rowOf('Spring Flamingo sale').getByText('Public Link').waitFor();

    // --- unshare: the old link now shows Email Not Found ---
    await rowOf('Spring Flamingo sale').getByRole('link').click();
    await page.getByRole('button', { name: 'Share Link' }).click();
    await shareSwitch.click();
    // Turning sharing off asks first (src/web/features/email-detail/share-dialog.tsx).
    await page
      .getByRole('dialog', { name: 'Turn Sharing Off?' })
      .getByRole('button', { name: 'Turn Sharing Off' })
      .click();
    await toast(page, 'success', 'Sharing disabled').waitFor();
    expect(await shareSwitch.getAttribute('aria-checked')).toBe('false');
    expect(await dialog.getByRole('textbox', { name: 'Public link' }).count()).toBe(0);
    await page.keyboard.press('Escape');
    await page.getByTestId('public-badge').waitFor({ state: 'detached' });

    const visitorAfter = await browser.sharedPage(server); // the visitor's page, emptied
    await visitorAfter.goto(publicUrl);
    await visitorAfter.getByRole('heading', { level: 1, name: 'Email Not Found' }).waitFor();
    await visitorAfter.getByText('Email has been deleted or no longer public').waitFor();

    // --- delete from the history: asked first, then gone for good ---
    await page.getByRole('link', { name: 'Back to History' }).first().click();
    const row = rowOf('Spring Flamingo sale');
    await row.getByText('Not Shared').waitFor();
    await row.getByRole('button', { name: /^Actions for/ }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete email' });
    await confirm.getByText('Are you sure you want to delete this email?').waitFor();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'success', 'Email deleted').waitFor();
    await row.waitFor({ state: 'detached' });
    // The keyboard stays in the list: on its search box, not lost on <body>.
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.getAttribute('aria-label')))
      .toBe('Search emails');
    await page.reload();
    await expect.poll(() => rows(page).count()).toBe(20);
    expect(await page.getByText('Spring Flamingo sale').count()).toBe(0);
    const res = await fetch(`${server.baseUrl}/api/email/${id}`, { headers: u.headers });
    expect(res.status).toBe(404);

    expect(problems.all()).toEqual([]);
    await context.close();
  });
});

describe('sharing while the detail is polled', () => {
  it('a poll that left before Share and comes back after it does not turn the switch off again', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const email = await insertEmail(server.db, {
      userId: u.user.id,
      to: 'client@example.com',
      subject: 'Polled while shared',
      html: '<p>Polled</p>',
      inlineCss: false,
      createdAt: new Date(),
    });
    // Queued (this server runs no worker): the detail page polls the email every 2 s or so.
    await enqueueMail(server.db, { priority: 'pro', to: ['client@example.com'], emailId: email.id });
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });
    let hold = false;
    let held = 0;
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(new RegExp(`/api/email/${email.id}$`), async (route) => {
      if (!hold || route.request().method() !== 'GET') return route.continue();
      held++;
      const before = await route.fetch(); // the state before the share
      await released;
      await route.fulfill({ response: before }).catch(() => undefined); // dropped by the page: fine
    });
    await page.goto(`/app/email/${email.id}`);
    await page.getByRole('heading', { level: 1, name: 'Polled while shared' }).waitFor();
    hold = true;
    await expect.poll(() => held, { timeout: 15_000 }).toBe(1);

    await page.getByRole('button', { name: 'Share Link' }).click();
    const shareSwitch = page
      .getByRole('dialog', { name: 'Share Link' })
      .getByRole('switch', { name: 'Share publicly' });
    await shareSwitch.click();
    await toast(page, 'success', 'Email shared successfully!').waitFor();
    expect(await shareSwitch.getAttribute('aria-checked')).toBe('true');
    hold = false;
    release();
    await page.waitForTimeout(500);
    expect(await shareSwitch.getAttribute('aria-checked')).toBe('true');
    expect(problems.all()).toEqual([]);
  });
});
