import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { expectToast } from '../support/toasts.ts';
import { createUser, type TestUser } from '../support/users.ts';

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { FREE_MONTHLY_LIMIT: '3', FREE_SENDS_PER_MINUTE: '100' } });
});
afterAll(async () => server?.close());

/** Opens /app/send signed in as `u` (the session token planted as the app stores it). */
async function openSend(u: TestUser): Promise<Page> {
  const page = await browser.sharedPage(server, u);
  await page.goto('/app/send');
  await page.getByRole('heading', { level: 1, name: 'Send Test Email' }).waitFor();
  await page.locator('.cm-content').waitFor();
  return page;
}

/** Types HTML into the CodeMirror editor as a paste would (no auto-closed tags). */
async function typeHtml(page: Page, html: string) {
  await page.locator('.cm-content').click();
  await page.keyboard.insertText(html);
}

/** The user's sent emails, oldest first, each with the addresses of its outbox rows (one per recipient). */
const sentOf = async (u: TestUser) => {
  const emails = await server.db
    .selectFrom('emails')
    .select(['id', 'subject', 'html', 'to_addresses'])
    .where('user_id', '=', u.user.id)
    .orderBy('created_at')
    .execute();
  const outbox = await server.db
    .selectFrom('mail_outbox')
    .select(['email_id', 'to_addresses'])
    .where('reply_to', '=', u.user.email)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return emails.map((e) => ({
    ...e,
    recipients: outbox.filter((o) => o.email_id === e.id).flatMap((o) => o.to_addresses),
  }));
};

describe('/app/send', () => {
  it('sends with and without inline CSS, clears the form and counts down the banner', async () => {
    const u = await createUser(server.db);
    const page = await openSend(u);
    const banner = page.getByTestId('usage-banner');
    await banner.getByText('3 of 3 sends remaining this month').waitFor();
    expect(await banner.getAttribute('data-tone')).toBe('normal');

    await page.getByLabel('To', { exact: true }).fill('client@example.com, , boss@example.com');
    await page.getByLabel('Subject').fill('Spring sale');
    const html = '<style>p.lead { color: #ff0000 }</style><p class="lead">Hello</p>';
    await typeHtml(page, html);
    await page.getByRole('button', { name: 'Send Test Email' }).click();
    await expectToast(page, 'Email sent successfully!');
    expect(await page.getByLabel('To', { exact: true }).inputValue()).toBe('');
    expect(await page.getByLabel('Subject').inputValue()).toBe('');
    await page.locator('.cm-placeholder').waitFor(); // the editor is empty again
    expect(await page.locator('.cm-content').innerText()).not.toContain('p.lead');
    await banner.getByText('2 of 3 sends remaining this month').waitFor();
    expect(await banner.getAttribute('data-tone')).toBe('low'); // orange at 2 or fewer

    let rows = await sentOf(u);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      subject: 'Spring sale',
      to_addresses: 'client@example.com, boss@example.com',
      html,
    });
    // Both rows are inserted by one statement: compare the recipients as a set.
    expect([...rows[0]!.recipients].sort()).toEqual(['boss@example.com', 'client@example.com']);

    // Inline CSS on, sent with Ctrl+Enter from the editor.
    await page.getByLabel('To', { exact: true }).fill('client@example.com');
    await typeHtml(page, html);
    await page.getByRole('switch', { name: 'Inline CSS' }).click();
    await page.keyboard.press('Control+Enter');
    await expectToast(page, 'Email sent successfully!');
    await banner.getByText('1 of 3 sends remaining this month').waitFor();
    rows = await sentOf(u);
    expect(rows).toHaveLength(2);
    expect(rows[1]?.html).toMatch(/<p class="lead" style="color: #ff0000;?">Hello<\/p>/);
    expect(rows[1]?.subject).toBe('Test Email');

    // The last send of the month turns the banner red with the upgrade call.
    await page.getByLabel('To', { exact: true }).fill('client@example.com');
    await typeHtml(page, '<p>last</p>');
    await page.keyboard.press('Control+Enter'); // from inside the editor: sends once, adds no line
    await expectToast(page, 'Email sent successfully!');
    await banner.getByText('0 of 3 sends remaining this month').waitFor();
    rows = await sentOf(u);
    expect(rows).toHaveLength(3);
    expect(rows[2]?.html).toBe('<p>last</p>');
    expect(await banner.getAttribute('data-tone')).toBe('empty');
    await banner.getByText('Free plan limit reached').waitFor();
    await banner.getByRole('button', { name: 'Upgrade to Pro for unlimited sends' }).waitFor();
    expect(await page.getByRole('button', { name: 'Send Test Email' }).isDisabled()).toBe(true);
  });

  it("shows the spec's validation messages and sends nothing", async () => {
    const u = await createUser(server.db);
    const page = await openSend(u);
    await page.getByRole('button', { name: 'Send Test Email' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'Missing required fields' });
    await alert.getByText('Please fill in recipient email and HTML content').waitFor();

    await page.getByLabel('To', { exact: true }).fill('a@x.com,b@x.com,c@x.com,d@x.com,e@x.com,f@x.com');
    await typeHtml(page, '<p>x</p>');
    await page.getByRole('button', { name: 'Send Test Email' }).click();
    const tooMany = page.getByRole('alert').filter({ hasText: 'Too many recipients' });
    await tooMany.getByText('Maximum 5 recipient email addresses allowed').waitFor();
    expect(await sentOf(u)).toHaveLength(0);
  });

  it('tells an unverified user to verify and sends a new link on request', async () => {
    const u = await createUser(server.db, { verified: false });
    const page = await openSend(u);
    const notice = page.getByTestId('verification-required');
    await notice.getByText('To send emails you must verify your email first.', { exact: false }).waitFor();
    await notice.getByRole('button', { name: 'Resend Verification Email' }).click();
    await expectToast(page, 'Verification email sent');
    await page.getByText('Check your inbox for a new verification link', { exact: true }).waitFor();

    await page.getByLabel('To', { exact: true }).fill('client@example.com');
    await typeHtml(page, '<p>x</p>');
    await page.getByRole('button', { name: 'Send Test Email' }).click();
    await page.getByRole('alert').getByText('To send emails you must verify your email first.').waitFor();
    expect(await sentOf(u)).toHaveLength(0);
  });

  it('does not show the usage banner to Pro users', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await openSend(u);
    await page.getByLabel('To', { exact: true }).waitFor();
    expect(await page.getByTestId('usage-banner').count()).toBe(0);
  });
});
