import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startFakeGitHub, startFakeGoogle, type FakeGitHub, type FakeGoogle } from '../support/fake-oauth.ts';
import { startAuthServer, tokenOf, type AuthServer } from '../support/auth-browser.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

/**
 * Social sign-in end to end in Chromium against local providers: a Google
 * style OIDC server (oauth2-mock-server) and a GitHub fake. The browser really leaves for the
 * provider and comes back through /api/auth/<p>/callback and /auth/callback.
 */

const browser = setupBrowser();
let google: FakeGoogle;
let github: FakeGitHub;
let auth: AuthServer;

beforeAll(async () => {
  google = await startFakeGoogle();
  github = await startFakeGitHub();
  auth = await startAuthServer({ env: { CAPTCHA_PROVIDER: 'none', ...google.env, ...github.env } });
});
afterAll(async () => {
  await auth?.close();
  await google?.stop();
  await github?.stop();
});

/** Every URL the page's main frame visits (to prove no session token ever sits in one). */
function recordUrls(page: Page): string[] {
  const urls: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) urls.push(frame.url());
  });
  page.on('request', (req) => {
    if (req.isNavigationRequest()) urls.push(req.url());
  });
  return urls;
}

async function continueWith(provider: 'Google' | 'GitHub', ignore: RegExp[] = []) {
  const page = await browser.newPage({ baseURL: auth.server.baseUrl });
  const problems = watchProblems(page, { ignore });
  const urls = recordUrls(page);
  await page.goto('/signin');
  await page.getByRole('link', { name: `Continue with ${provider}` }).click();
  return { page, problems, urls };
}

async function accountEmail(page: Page): Promise<string> {
  await page.goto('/app/account');
  return page.getByTestId('account-email').innerText();
}

function expectNoSessionTokenInUrls(urls: string[], token: string) {
  expect(urls.some((u) => u.includes('/auth/callback?token='))).toBe(true); // the ticket did pass
  for (const url of urls) expect(url).not.toContain(token);
}

describe('social sign-in in the browser', () => {
  it('shows both buttons on sign-in and sign-up when both providers are configured', async () => {
    const page = await browser.newPage({ baseURL: auth.server.baseUrl });
    for (const path of ['/signin', '/signup']) {
      await page.goto(path);
      expect(await page.getByRole('link', { name: 'Continue with Google' }).getAttribute('href')).toBe(
        '/api/auth/google',
      );
      expect(await page.getByRole('link', { name: 'Continue with GitHub' }).getAttribute('href')).toBe(
        '/api/auth/github',
      );
    }
  });

  it('Google: a new user lands in the app, verified; the session token never appears in a URL', async () => {
    const email = uniqueEmail('google-new');
    google.setIdentity({ sub: `g-${email}`, email, email_verified: true });
    const { page, problems, urls } = await continueWith('Google');
    await page.waitForURL('**/app/send');
    const token = await tokenOf(page);
    expect(token).toMatch(/\S{20,}/);
    expectNoSessionTokenInUrls(urls, token!);
    expect(page.url()).not.toContain('token=');
    expect(await accountEmail(page)).toBe(email);
    expect(
      await page
        .getByRole('region', { name: 'Account information' })
        .getByText('Verified', { exact: true })
        .isVisible(),
    ).toBe(true);
    expect(problems.all()).toEqual([]);
  });

  it('GitHub: a new user lands in the app with the verified primary email', async () => {
    const email = uniqueEmail('github-new');
    const before = github.tokenExchanges();
    github.setIdentity({ id: 5001, login: 'octo-new', emails: [{ email, primary: true, verified: true }] });
    const { page, problems, urls } = await continueWith('GitHub');
    await page.waitForURL('**/app/send');
    expect(github.tokenExchanges()).toBe(before + 1);
    expectNoSessionTokenInUrls(urls, (await tokenOf(page))!);
    expect(await accountEmail(page)).toBe(email);
    expect(problems.all()).toEqual([]);
  });

  it('an existing account is linked when the provider verified the same email', async () => {
    const email = uniqueEmail('linked');
    const res = await fetch(`${auth.server.baseUrl}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    expect(res.status).toBe(200);
    const { user } = (await res.json()) as { user: { id: string } };
    // A verified account keeps its password when linked (an unverified one would lose it: the
    // server's pre-hijacking defence).
    await auth.server.db
      .updateTable('users')
      .set({ verified_at: new Date() })
      .where('id', '=', user.id)
      .execute();
    google.setIdentity({ sub: `g-${email}`, email: email.toUpperCase(), email_verified: true });
    const { page } = await continueWith('Google');
    await page.waitForURL('**/app/send');
    expect((await accountEmail(page)).toLowerCase()).toBe(email.toLowerCase());
    // The same account: it still has its password form, and there is one user with that address.
    expect(
      await page.getByRole('region', { name: 'Change password' }).getByLabel('Current password').count(),
    ).toBe(1);
    const users = await auth.server.db
      .selectFrom('users')
      .select('id')
      .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
      .execute();
    expect(users.map((u) => u.id)).toEqual([user.id]);
    const links = await auth.server.db
      .selectFrom('oauth_accounts')
      .select('provider')
      .where('user_id', '=', user.id)
      .execute();
    expect(links).toEqual([{ provider: 'google' }]);
  });

  it('an unverified provider email is not linked: back to sign in with the reason', async () => {
    const email = uniqueEmail('unverified');
    github.setIdentity({
      id: 6001,
      login: 'octo-unverified',
      emails: [{ email, primary: true, verified: false }],
    });
    const { page, problems } = await continueWith('GitHub');
    await page.waitForURL('**/signin?error=email_not_verified');
    expect(await page.getByRole('main').getByRole('alert').innerText()).toContain('not verified');
    expect(await tokenOf(page)).toBeNull();
    const users = await auth.server.db.selectFrom('users').select('id').where('email', '=', email).execute();
    expect(users).toHaveLength(0);
    expect(problems.all()).toEqual([]);
  });

  it('a provider failure comes back as auth_failed', async () => {
    google.failNextTokenRequest('invalid_grant');
    const { page } = await continueWith('Google');
    await page.waitForURL('**/signin?error=auth_failed');
    expect(await page.getByRole('main').getByRole('alert').innerText()).toContain('could not sign you in');
    expect(await tokenOf(page)).toBeNull();
  });
});
