import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { createUser, type TestUser } from '../support/users.ts';

/** The composer at /app/send beyond the spec's form (tests/e2e/send.test.ts): its editor and its limits. */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { FREE_MONTHLY_LIMIT: '1', FREE_SENDS_PER_MINUTE: '100' } });
});
afterAll(async () => server?.close());

async function openSend(u: TestUser, theme: 'light' | 'dark' = 'light'): Promise<Page> {
  const page = await browser.newPage({ baseURL: server.baseUrl });
  await page.addInitScript(
    ([token, t]) => {
      localStorage.setItem('auth_token', token!);
      localStorage.setItem('theme', t!);
    },
    [u.token, theme],
  );
  await page.goto('/app/send');
  await page.getByRole('heading', { level: 1, name: 'Send Test Email' }).waitFor();
  await page.locator('.cm-content').waitFor();
  return page;
}

/** WCAG contrast ratio of two rgb() colours. */
function contrast(a: string, b: string): number {
  const lum = (rgb: string) => {
    const [r, g, bl] = (rgb.match(/\d+(\.\d+)?/g) ?? []).slice(0, 3).map((c) => {
      const v = Number(c) / 255;
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
    });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** Pastes `text` into the editor as the clipboard does (one transaction, like Ctrl+V). */
async function paste(page: Page, text: string): Promise<void> {
  await page.locator('.cm-content').evaluate((content, value) => {
    const data = new DataTransfer();
    data.setData('text/plain', value);
    content.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
    );
  }, text);
}

describe('the composer', () => {
  it('wraps lines, but not while one is too long to lay out on every key (minified HTML)', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await openSend(u);
    const problems = watchProblems(page);
    const content = page.locator('.cm-content');
    const wraps = () => content.evaluate((el) => el.classList.contains('cm-lineWrapping'));
    await content.click();
    await paste(page, '<p>A short line</p>\n<p>and another</p>');
    expect(await wraps()).toBe(true);
    // One line of 12,000 characters among short ones (src/web/features/send/wrap-short-lines.ts).
    const minified = `<table>${'<tr><td style="padding:0">x</td></tr>'.repeat(320)}</table>`;
    expect(minified.length).toBeGreaterThan(10_000);
    await paste(page, `\n${minified}\n<p>after</p>`);
    await expect.poll(wraps).toBe(false);
    // Typing on that line, or elsewhere, keeps it unwrapped while the line is there.
    await page.keyboard.insertText('<p>more</p>');
    expect(await wraps()).toBe(false);
    // Replaced by short lines: wrapped again.
    await page.keyboard.press('Control+A');
    await paste(page, '<p>Short again</p>');
    await expect.poll(wraps).toBe(true);
    expect(problems.all()).toEqual([]);
  });

  it('keeps unsent work in the tab through another screen and a reload; a send clears it', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await openSend(u);
    await page.getByLabel('To', { exact: true }).fill('client@example.com');
    await page.getByLabel('Subject').fill('Draft kept');
    await page
      .getByRole('radiogroup', { name: 'Source format' })
      .getByRole('radio', { name: 'MJML' })
      .click();
    await page.locator('.cm-content').click();
    await page.keyboard.insertText(
      '<mjml><mj-body><mj-section><mj-column><mj-text>Kept</mj-text></mj-column></mj-section></mj-body></mjml>',
    );
    // Away at once (before the pause that saves), to another screen, and back.
    await page.getByRole('link', { name: 'Emails' }).first().click();
    await page.waitForURL('**/app/history');
    await page.goBack();
    await page.locator('.cm-content').getByText('<mj-text>Kept</mj-text>', { exact: false }).waitFor();
    expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe('client@example.com');
    expect(await page.getByLabel('Subject').inputValue()).toBe('Draft kept');
    const mjml = page.getByRole('radiogroup', { name: 'Source format' }).getByRole('radio', { name: 'MJML' });
    expect(await mjml.getAttribute('aria-checked')).toBe('true');
    await page.reload();
    await page.locator('.cm-content').getByText('<mj-text>Kept</mj-text>', { exact: false }).waitFor();
    expect(await page.getByLabel('Subject').inputValue()).toBe('Draft kept');

    // Sent: the form and the kept draft clear together.
    await page.locator('.cm-content').click();
    await page.keyboard.press('Control+Enter');
    await page.getByText('Email sent successfully!', { exact: true }).first().waitFor();
    await page.waitForURL(/\/app\/email\/[0-9a-f-]+$/, { timeout: 15_000 });
    await page.goto('/app/send');
    await page.locator('.cm-content').waitFor();
    expect(await page.getByLabel('Subject').inputValue()).toBe('');
    expect(
      await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.includes('composer-draft'))),
    ).toEqual([]);
  });

  it('at 0 sends left, neither the button nor Ctrl/Cmd+Enter sends, and a hint says why', async () => {
    const u = await createUser(server.db);
    const page = await openSend(u);
    // The month's one send.
    await page.getByLabel('To', { exact: true }).fill('client@example.com');
    await page.locator('.cm-content').click();
    await page.keyboard.insertText('<p>first</p>');
    await page.keyboard.press('Control+Enter');
    await page.getByText('Email sent successfully!', { exact: true }).first().waitFor();
    await page.getByTestId('usage-banner').getByText('0 of 1 sends remaining this month').waitFor();

    const sends: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/email/send')) sends.push(r.method());
    });
    const button = page.getByRole('button', { name: 'Send Test Email' });
    expect(await button.isDisabled()).toBe(true);
    const hint = page.getByText('No sends left this month', { exact: false });
    await hint.waitFor();
    expect(await button.getAttribute('aria-describedby')).toBe(await hint.getAttribute('id'));

    await page.getByLabel('To', { exact: true }).fill('client@example.com');
    await page.locator('.cm-content').click();
    await page.keyboard.insertText('<p>second</p>');
    await page.keyboard.press('Control+Enter'); // in the editor
    await page.getByLabel('To', { exact: true }).press('Control+Enter'); // in a field
    await page.getByLabel('To', { exact: true }).press('Meta+Enter');
    await page.waitForTimeout(500);
    expect(sends).toEqual([]);
    const rows = await server.db
      .selectFrom('mail_outbox')
      .select('id')
      .where('reply_to', '=', u.user.email)
      .execute();
    expect(rows).toHaveLength(1);
    // The editor kept the text (Ctrl+Enter did not insert a line either).
    expect(await page.locator('.cm-content').innerText()).toContain('<p>second</p>');
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`the ${theme} editor: its text, syntax colours and placeholder reach WCAG AA contrast`, async () => {
      const u = await createUser(server.db, { plan: 'pro' });
      const page = await openSend(u, theme);
      const problems = watchProblems(page);
      const editor = page.locator('.cm-editor');
      const background = await editor.evaluate((el) => getComputedStyle(el).backgroundColor);
      if (theme === 'dark') expect(background).toBe('rgb(2, 6, 23)'); // the app's dark background
      const placeholder = await page.locator('.cm-placeholder').evaluate((el) => getComputedStyle(el).color);
      expect(
        contrast(placeholder, background),
        `placeholder ${placeholder} on ${background}`,
      ).toBeGreaterThanOrEqual(4.5);

      await page.locator('.cm-content').click();
      await page.keyboard.insertText(
        '<!DOCTYPE html>\n<!-- a comment -->\n<p class="lead" style="color: #333; width: 10px">Hi &amp; bye</p>',
      );
      const coloursNow = () =>
        page
          .locator('.cm-content')
          .evaluate((el) =>
            [...el.querySelectorAll('.cm-line, .cm-line span')].map((s) => getComputedStyle(s).color),
          );
      // The highlighter parses after the text lands (later on a busy machine): wait for its colours.
      await expect
        .poll(async () => new Set(await coloursNow()).size, { message: 'syntax colours' })
        .toBeGreaterThanOrEqual(5);
      const colours = await coloursNow();
      for (const colour of new Set(colours)) {
        expect(contrast(colour, background), `${colour} on ${background}`).toBeGreaterThanOrEqual(4.5);
      }
      expect(problems.all()).toEqual([]);
    });
  }
});
