import type { BrowserContextOptions, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_MESSAGES } from '../../src/shared/contract/auth.ts';
import { API_KEY_MESSAGES } from '../../src/shared/contract/api-keys.ts';
import { REVIEW_MESSAGES } from '../../src/shared/review-rules.ts';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { insertCaughtMail } from '../../src/server/mail/caught-mail.repo.ts';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { shot } from '../support/screenshots.ts';
import { insertSharedEmail } from '../support/shared-email.ts';
import { expectToast } from '../support/toasts.ts';
import { createUser, PASSWORD, type TestUser } from '../support/users.ts';
import { sendEmail } from '../support/send-email.ts';

/**
 * What an accessibility audit found and what now holds: the editor lets the keyboard out and says
 * how (docs/decisions/0125-editor-keyboard.md) and sends what was typed, field errors and search
 * results are announced, focus stays somewhere sensible (busy buttons, Load More, a new page's
 * heading), text meets WCAG AA contrast, and the dev mailbox fits a phone.
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    deps: { mailCatcher: true },
    env: { PRO_SENDS_PER_MINUTE: '1000' },
  });
});
afterAll(async () => server?.close());

const SANDBOX_NOISE = /Blocked script execution in 'about:srcdoc'/;

const VIEWS: Array<[string, BrowserContextOptions]> = [
  ['1280-light', { viewport: { width: 1280, height: 900 }, colorScheme: 'light' }],
  ['1280-dark', { viewport: { width: 1280, height: 900 }, colorScheme: 'dark' }],
  ['375-light', { viewport: { width: 375, height: 800 }, colorScheme: 'light' }],
  ['375-dark', { viewport: { width: 375, height: 800 }, colorScheme: 'dark' }],
];

/** What has the keyboard focus: its tag, id, text and whether it is inside the editor. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return {
      tag: el?.tagName ?? null,
      id: el?.id ?? '',
      text: (el as HTMLElement | null)?.innerText?.trim().slice(0, 80) ?? '',
      inEditor: Boolean(el?.closest('.cm-editor')),
    };
  });

/**
 * The WCAG contrast ratio of an element's text against what is painted behind it: the
 * backgrounds of it and its ancestors composited from the root down (Tailwind's colours are
 * oklch() and often translucent, so the browser's canvas does the colour maths).
 */
function textContrast(target: Locator): Promise<number> {
  return target.evaluate((el) => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
    const chain: Element[] = [];
    for (let e: Element | null = el; e; e = e.parentElement) chain.unshift(e);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, 1, 1);
    for (const e of chain) {
      ctx.fillStyle = getComputedStyle(e).backgroundColor;
      ctx.fillRect(0, 0, 1, 1);
    }
    const back = [...ctx.getImageData(0, 0, 1, 1).data.slice(0, 3)];
    ctx.fillStyle = getComputedStyle(el).color;
    ctx.fillRect(0, 0, 1, 1);
    const fore = [...ctx.getImageData(0, 0, 1, 1).data.slice(0, 3)];
    const lum = (rgb: number[]) => {
      const [r, g, b] = rgb.map((c) => {
        const v = c / 255;
        return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
      });
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const [hi, lo] = [lum(fore), lum(back)].sort((a, b) => b - a);
    return Math.round(((hi! + 0.05) / (lo! + 0.05)) * 100) / 100;
  });
}

/** The editor's document, line by line as CodeMirror lays it out. */
const editorText = (page: Page) =>
  page
    .locator('.cm-content')
    .evaluate((el) => [...el.querySelectorAll('.cm-line')].map((l) => l.textContent ?? '').join('\n'));

async function openSend(u: TestUser): Promise<Page> {
  const page = await browser.sharedPage(server, u);
  await page.goto('/app/send');
  await page.getByRole('heading', { level: 1, name: 'Send Test Email' }).waitFor();
  await page.locator('.cm-content').waitFor();
  return page;
}

const send = (u: TestUser, body: Record<string, unknown>) => sendEmail(server, u, body);

describe('the HTML editor', () => {
  it('Tab indents, Esc then Tab moves on (both ways), and the editor says so in its description', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await openSend(u);
    const problems = watchProblems(page);
    const editor = page.locator('#send-html');

    // The hint is the editor's description, and it is on screen.
    const describedBy = ((await editor.getAttribute('aria-describedby')) ?? '').split(' ').filter(Boolean);
    const descriptions = await Promise.all(describedBy.map((id) => page.locator(`[id="${id}"]`).innerText()));
    expect(descriptions.map((d) => d.replace(/\s+/g, ' ').trim())).toContain(
      'Tab indents · Esc then Tab to move on',
    );
    const hintId = describedBy[descriptions.findIndex((d) => d.includes('Esc then Tab'))]!;
    expect(await page.locator(`[id="${hintId}"]`).isVisible()).toBe(true);

    // Keyboard only, from the Subject field: Tab reaches the editor.
    await page.getByLabel('Subject').focus();
    for (let i = 0; i < 20 && (await focused(page)).id !== 'send-html'; i++) await page.keyboard.press('Tab');
    expect((await focused(page)).id).toBe('send-html');
    // Inside, Tab indents (the editor keeps the focus)…
    await page.keyboard.type('<p>');
    await page.keyboard.press('Tab');
    expect((await focused(page)).inEditor).toBe(true);
    expect(await editorText(page)).toMatch(/^\s+<p>$|^<p>\s+$/);
    // …and Esc then Tab moves on to what follows the editor.
    await page.keyboard.press('Escape');
    await page.keyboard.press('Tab');
    const after = await focused(page);
    expect(after.inEditor).toBe(false);
    expect(after.tag).not.toBe('BODY');
    // Back into the editor with Shift+Tab, then out backwards with Esc then Shift+Tab.
    await page.keyboard.press('Shift+Tab');
    expect((await focused(page)).id).toBe('send-html');
    await page.keyboard.press('Escape');
    await page.keyboard.press('Shift+Tab');
    const before = await focused(page);
    expect(before.inEditor).toBe(false);
    expect(before.tag).not.toBe('BODY');
    for (const [name, view] of VIEWS) {
      await page.setViewportSize(view.viewport!);
      await page.emulateMedia({ colorScheme: view.colorScheme });
      await shot(page, `a11y-send-${name}`);
    }
    expect(problems.all()).toEqual([]);
  });

  it('inserts no closing tag of its own: what is typed is what is sent (HTML and MJML)', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await openSend(u);
    const problems = watchProblems(page);
    await page.locator('.cm-content').click();
    await page.keyboard.type('<p>Hello</p>');
    await page.keyboard.press('Enter');
    await page.keyboard.type('<h1>Title</h1>');
    expect(await editorText(page)).toBe('<p>Hello</p>\n<h1>Title</h1>');

    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page
      .getByRole('radiogroup', { name: 'Source format' })
      .getByRole('radio', { name: 'MJML' })
      .click();
    await page.locator('.cm-content').click();
    await page.keyboard.type('<mj-text>Hi</mj-text>');
    expect(await editorText(page)).toBe('<mj-text>Hi</mj-text>');
    expect(problems.all()).toEqual([]);
  });
});

describe('field errors are announced', () => {
  it('on /forgot-password: none at load, an alert on submit', async () => {
    const page = await browser.sharedPage(server);
    const problems = watchProblems(page);
    await page.goto('/forgot-password');
    await page.getByRole('heading', { level: 1, name: 'Forgot Your Password?' }).waitFor();
    expect(await page.getByRole('alert').count()).toBe(0);
    await page.getByLabel('Email', { exact: true }).fill('not-an-address');
    await page.keyboard.press('Enter');
    const error = page.locator('#forgot-email-error');
    await error.waitFor();
    expect(await error.getAttribute('role')).toBe('alert');
    expect(await error.innerText()).toBe(AUTH_MESSAGES.invalidEmail);
    expect(await page.getByRole('alert').count()).toBe(1);
    expect(problems.all()).toEqual([]);
  });

  it('on /app/account (API key name) and on the public page (reviewer name)', async () => {
    const u = await createUser(server.db, { plan: 'pro', verified: true });
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page, { ignore: [SANDBOX_NOISE] });
    await page.goto('/app/account');
    const card = page.locator('[data-section="api-keys"]');
    await card.getByRole('button', { name: 'Create Key' }).click();
    const keyError = page.locator('#api-key-name-error');
    await keyError.waitFor();
    expect(await keyError.getAttribute('role')).toBe('alert');
    expect(await keyError.innerText()).toBe(API_KEY_MESSAGES.nameRequired);

    const { slug } = await insertSharedEmail(server, u, { subject: 'For review', html: '<p>Hi</p>' });
    await page.goto(`/s/${slug}`);
    const form = page.getByRole('form', { name: 'Review this email' });
    await form.waitFor();
    expect(await form.getByRole('alert').count()).toBe(0);
    await form.getByRole('button', { name: 'Send Review' }).click();
    const nameError = page.locator('#reviewer-name-error');
    await nameError.waitFor();
    expect(await nameError.getAttribute('role')).toBe('alert');
    expect(await nameError.innerText()).toBe(REVIEW_MESSAGES.nameRequired);
    expect(problems.all()).toEqual([]);
  });
});

describe('history', () => {
  async function seed(u: TestUser, count: number, subject = 'Newsletter') {
    const start = Date.now() - count * 60_000;
    for (let i = 0; i < count; i++) {
      await insertEmail(server.db, {
        userId: u.user.id,
        to: 'client@example.com',
        subject: `${subject} ${i + 1}`,
        html: `<p>${subject} ${i + 1}</p>`,
        inlineCss: false,
        createdAt: new Date(start + i * 60_000),
      });
    }
  }

  it('says what a search found in a polite status, and nothing on the first load', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    await seed(u, 3);
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page);
    await page.goto('/app/history?q=Newsletter');
    await page.getByTestId('email-row').first().waitFor();
    const status = page.locator('[data-testid="search-status"]');
    expect(await status.getAttribute('role')).toBe('status');
    expect(await status.getAttribute('aria-live')).toBe('polite');
    expect(await status.textContent()).toBe('');

    const box = page.getByRole('searchbox', { name: 'Search emails' });
    await box.fill('nothing like it');
    await expect.poll(() => status.textContent()).toBe('No emails found matching the query');
    await box.fill('Newsletter 2');
    await expect.poll(() => status.textContent()).toBe('1 email found');
    await page.getByRole('button', { name: 'Clear search box' }).click();
    await expect.poll(() => status.textContent()).toBe('Search cleared, showing all emails');
    expect(problems.all()).toEqual([]);
  });

  it('Load More gives the focus to the first row it loaded; opening a row and going back focus the headings', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    await seed(u, 21);
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page, { ignore: [SANDBOX_NOISE] });
    await page.goto('/app/history');
    await page.getByTestId('email-row').nth(19).waitFor();
    // A first load leaves the focus where the browser puts it.
    expect((await focused(page)).tag).toBe('BODY');
    await page.getByRole('button', { name: 'Load More' }).focus();
    await page.keyboard.press('Enter');
    await page.getByTestId('email-row').nth(20).waitFor();
    expect(await page.getByRole('button', { name: 'Load More' }).count()).toBe(0);
    await expect
      .poll(() =>
        page.evaluate(() => {
          const rows = [...document.querySelectorAll('[data-testid="email-row"]')];
          return rows.indexOf(document.activeElement?.closest('[data-testid="email-row"]') as Element);
        }),
      )
      .toBe(20);

    // Enter on the row's link: the detail page's heading has the focus, without a ring.
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/app\/email\//);
    await expect.poll(async () => (await focused(page)).tag).toBe('H1');
    expect((await focused(page)).text).toBe('Newsletter 1');
    const h1 = page.locator('h1');
    expect(await h1.evaluate((el) => getComputedStyle(el).outlineStyle)).toBe('none');

    await page.getByRole('link', { name: 'Back to History' }).focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/app\/history$/);
    await expect.poll(async () => (await focused(page)).text).toBe('Emails');
    expect((await focused(page)).tag).toBe('H1');
    expect(problems.all()).toEqual([]);
  });
});

describe('busy buttons keep the focus and cannot act twice', () => {
  it('sign-in with a wrong password by keyboard', async () => {
    const u = await createUser(server.db, { password: PASSWORD });
    const page = await browser.newPage({ baseURL: server.baseUrl });
    const problems = watchProblems(page, { ignore: [/\/api\/auth\/signin 401/, /401 \(Unauthorized\)/] });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let requests = 0;
    await page.route('**/api/auth/signin', async (route) => {
      requests++;
      await held;
      await route.continue();
    });
    await page.goto('/signin');
    await page.getByLabel('Email', { exact: true }).fill(u.user.email);
    await page.getByLabel('Password', { exact: true }).fill('not the password');
    const button = page.getByRole('button', { name: /Sign In|Signing in/ });
    await button.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => requests).toBe(1);
    await page.getByText('Signing in…').waitFor();
    expect(await button.getAttribute('aria-disabled')).toBe('true');
    expect(await button.getAttribute('disabled')).toBeNull();
    expect((await focused(page)).text).toBe('Signing in…');
    // Enter, Space and a click on the busy button, and Enter in a field, send nothing more.
    await page.keyboard.press('Enter');
    await page.keyboard.press('Space');
    await button.click({ force: true });
    await page.getByLabel('Password', { exact: true }).press('Enter');
    await button.focus();
    expect(requests).toBe(1);
    release();
    await expectToast(page, 'Sign in failed', 'Invalid email or password');
    await page.getByText('Signing in…').waitFor({ state: 'detached' });
    expect((await focused(page)).text).toBe('Sign In');
    expect(requests).toBe(1);
    expect(problems.all()).toEqual([]);
  });
});

describe('contrast (WCAG AA, 4.5:1)', () => {
  it('the compare screen’s line numbers and the detail page’s To: label and size, light and dark', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const v1 = await send(u, { html: '<p>One</p>\n<p>Two</p>\n<p>Three</p>' });
    const v2 = await send(u, { html: '<p>One</p>\n<p>2</p>\n<p>Three</p>\n<p>Four</p>', parentId: v1 });
    const seen: Record<string, number> = {};
    for (const [name, view] of VIEWS) {
      const page = await browser.pageWith(server, u, view);
      const problems = watchProblems(page, { ignore: [SANDBOX_NOISE] });
      await page.goto(`/app/email/${v1}/compare/${v2}`);
      const table = page.locator('[data-testid="diff-split"], [data-testid="diff-inline"]').first();
      await table.waitFor();
      const numbers = table.locator(
        'tr[data-kind="removed"] td, tr[data-kind="added"] td, tr[data-kind="changed"] td',
      );
      const cells = await numbers.evaluateAll((tds) =>
        tds.map((td, i) => (/^\d+$/.test(td.textContent ?? '') ? i : -1)).filter((i) => i >= 0),
      );
      expect(cells.length).toBeGreaterThan(1);
      for (const i of cells) {
        const ratio = await textContrast(numbers.nth(i));
        seen[`${name} line number ${i}`] = ratio;
        expect(ratio, `${name}: line number ${i}`).toBeGreaterThanOrEqual(4.5);
      }
      await shot(page, `a11y-compare-${name}`);

      await page.goto(`/app/email/${v2}`);
      const to = page.getByTestId('preview-to').locator('span').first();
      await to.waitFor();
      seen[`${name} To:`] = await textContrast(to);
      expect(seen[`${name} To:`], `${name}: To:`).toBeGreaterThanOrEqual(4.5);
      const size = page.getByTestId('preview-size');
      await size.waitFor();
      seen[`${name} size`] = await textContrast(size);
      expect(seen[`${name} size`], `${name}: preview size`).toBeGreaterThanOrEqual(4.5);
      await shot(page, `a11y-detail-${name}`);
      expect(problems.all()).toEqual([]);
    }
    console.log('[contrast]', JSON.stringify(seen));
  });
});

describe('the dev mailbox', () => {
  it('fits a 375 px phone with a 258-character subject; the selected row’s lines meet 4.5:1', async () => {
    const subject = `A very long subject ${'that keeps going '.repeat(14)}`.slice(0, 258);
    expect(subject).toHaveLength(258);
    await insertCaughtMail(server.db, {
      messageId: '<long-subject@proofmail.test>',
      envelopeFrom: 'noreply@proofmail.test',
      from: 'Proofmail Notifications With A Long Name <noreply-notifications@proofmail.test>',
      to: ['a-rather-long-recipient-address-for-testing@example.com'],
      subject,
      html: '<p>Hello</p>',
      text: 'Hello',
      headers: [],
      size: 400,
      receivedAt: new Date(),
    });
    const seen: Record<string, number> = {};
    for (const [name, view] of VIEWS) {
      const page = await browser.pageWith(server, undefined, view);
      const problems = watchProblems(page, { ignore: [SANDBOX_NOISE] });
      await page.goto('/dev/mailbox');
      await page.getByRole('heading', { level: 1, name: 'Local Mailbox' }).waitFor();
      const row = page.locator('button[aria-current="true"]');
      await row.waitFor();
      await page.getByRole('heading', { level: 2, name: subject }).waitFor();
      expect(
        await page.evaluate(() => document.scrollingElement!.scrollWidth - window.innerWidth),
        `${name}: sideways overflow`,
      ).toBeLessThanOrEqual(0);
      for (const [what, target] of [
        ['time', row.locator('time')],
        ['from', row.getByText(/^from /)],
      ] as const) {
        seen[`${name} ${what}`] = await textContrast(target);
        expect(seen[`${name} ${what}`], `${name}: ${what}`).toBeGreaterThanOrEqual(4.5);
      }
      await shot(page, `a11y-mailbox-${name}`);
      expect(problems.all()).toEqual([]);
    }
    console.log('[contrast]', JSON.stringify(seen));
  });
});
