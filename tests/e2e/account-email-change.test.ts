import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSession } from '../../src/server/accounts/sessions.ts';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import {
  linkIn,
  signInThroughPage,
  startAuthServer,
  storeToken,
  waitForMail,
  type AuthServer,
} from '../support/auth-browser.ts';
import { shot } from '../support/screenshots.ts';
import { expectToast } from '../support/toasts.ts';
import { createUser, PASSWORD, uniqueEmail } from '../support/users.ts';

/**
 * Changing the email on the account page needs the current password (or a fresh sign-in), and
 * the notice to the old address carries a "This wasn't me" link whose page undoes the change
 * (docs/decisions/0033-email-change-needs-password.md).
 */

const browser = setupBrowser();
let auth: AuthServer;

beforeAll(async () => {
  auth = await startAuthServer({ env: { CAPTCHA_PROVIDER: 'none' } });
});
afterAll(async () => auth?.close());

async function signUpThroughApi(email: string): Promise<void> {
  const res = await fetch(`${auth.server.baseUrl}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(res.status).toBe(200);
}

const card = (page: Page) => page.getByRole('region', { name: 'Change email' });

describe('the change-email card', () => {
  it('asks for the current password, then mails a link to the new address and a notice with "This wasn\'t me"', async () => {
    const email = uniqueEmail('mover');
    await signUpThroughApi(email);
    const page = await browser.newPage({ baseURL: auth.server.baseUrl });
    const problems = watchProblems(page, { ignore: [/change-email 400/, /status of 400/] });
    await signInThroughPage(page, email, PASSWORD);
    await page.goto('/app/account');
    const section = card(page);
    const newEmail = uniqueEmail('moved');
    await section.getByLabel('New email', { exact: true }).fill(newEmail);
    await section.getByRole('button', { name: 'Change Email' }).click();
    expect(await section.getByRole('alert').innerText()).toBe('Please enter your current password');
    const password = section.getByLabel('Current password', { exact: true });
    expect(await password.getAttribute('aria-invalid')).toBe('true');
    expect(await password.getAttribute('autocomplete')).toBe('current-password');

    await password.fill('not my password');
    await section.getByRole('button', { name: 'Change Email' }).click();
    await expectToast(page, 'Failed to change email', 'Current password is incorrect');
    expect(await section.getByRole('alert').innerText()).toBe('Current password is incorrect');

    await password.fill(PASSWORD);
    await shot(section, 'change-email-card');
    await section.getByRole('button', { name: 'Change Email' }).click();
    await expectToast(page, 'Verification Email Sent');
    expect(await password.inputValue()).toBe('');
    const confirm = await waitForMail(auth.server, newEmail, /^Confirm your new email/);
    const notice = await waitForMail(auth.server, email, /email address is being changed$/);
    expect(notice.text).toContain("This wasn't me");
    expect(problems.all()).toEqual([]);

    // The owner says it was not them: one click undoes it and signs every device out.
    const cancelPath = linkIn(notice, auth.server, '/cancel-email-change');
    await page.goto(cancelPath);
    await page.getByRole('heading', { level: 1, name: 'Not You? Cancel the Email Change' }).waitFor();
    expect(new URL(page.url()).search).toBe(''); // the token left the address bar
    await shot(page, 'cancel-email-change');
    await page.getByRole('button', { name: 'Cancel the Change and Sign Out Everywhere' }).click();
    await page.getByRole('heading', { level: 1, name: 'Email Change Cancelled' }).waitFor();
    expect(await page.getByRole('main').innerText()).toContain('every device was signed out');
    expect(await page.evaluate(() => localStorage.getItem('auth_token'))).toBeNull();

    // The confirmation link died with it.
    await page.goto(linkIn(confirm, auth.server, '/verify'));
    await page.getByRole('heading', { level: 1, name: 'Invalid verification link' }).waitFor();
  });

  it('an account without a password is asked to sign in again when its sign-in is not recent', async () => {
    const social = await createUser(auth.server.db, { now: new Date(Date.now() - 11 * 60_000) });
    const page = await browser.newPage({ baseURL: auth.server.baseUrl });
    const problems = watchProblems(page, { ignore: [/change-email 403/, /status of 403/] });
    await page.goto('/');
    await storeToken(page, social.token);
    await page.goto('/app/account');
    const section = card(page);
    await section.getByText('we ask for a sign-in from the last 10 minutes').waitFor();
    expect(await section.getByLabel('Current password').count()).toBe(0);
    await section.getByLabel('New email', { exact: true }).fill(uniqueEmail('social-new'));
    await section.getByRole('button', { name: 'Change Email' }).click();
    const warning = section.locator('[data-tone="warning"]');
    await warning.getByText('For your security, sign in again to change your email address').waitFor();
    await shot(section, 'change-email-reauth');
    await warning.getByRole('button', { name: 'Sign in again' }).click();
    await page.waitForURL('**/signin');
    expect(problems.all()).toEqual([]);

    // After a fresh sign-in (here: a new session) the change goes through.
    const fresh = await startSession(
      auth.server.db,
      social.user.id,
      { ip: '127.0.0.1', userAgent: 'e2e' },
      new Date(),
    );
    await storeToken(page, fresh);
    await page.goto('/app/account');
    const newEmail = uniqueEmail('social-fresh');
    await card(page).getByLabel('New email', { exact: true }).fill(newEmail);
    await card(page).getByRole('button', { name: 'Change Email' }).click();
    await expectToast(page, 'Verification Email Sent');
  });
});
