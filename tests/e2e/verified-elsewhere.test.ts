import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import {
  linkIn,
  startAuthServer,
  storeToken,
  waitForMail,
  type AuthServer,
} from '../support/auth-browser.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

/**
 * An open /app tab learns that its user verified the address somewhere else: in another tab of
 * this browser (at once), or anywhere, e.g. on the phone (when the tab is looked at again).
 */

const browser = setupBrowser();
let auth: AuthServer;

beforeAll(async () => {
  auth = await startAuthServer({ env: { CAPTCHA_PROVIDER: 'none' } });
});
afterAll(async () => auth?.close());

async function signUp(email: string): Promise<string> {
  const res = await fetch(`${auth.server.baseUrl}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

describe('verified elsewhere', () => {
  it('in another tab: the send screen and the account page drop their notices without a reload', async () => {
    const email = uniqueEmail('tabs');
    const token = await signUp(email);
    const context = await browser.newContext({ baseURL: auth.server.baseUrl });
    const send = await context.newPage();
    const problems = watchProblems(send);
    await send.goto('/contact');
    await storeToken(send, token);
    await send.goto('/app/send');
    await send.getByTestId('verification-required').waitFor();
    const account = await context.newPage();
    await account.goto('/app/account');
    await account.getByTestId('unverified-warning').waitFor();

    const mailTab = await context.newPage();
    const link = linkIn(await waitForMail(auth.server, email, /^Verify your email/), auth.server, '/verify');
    await mailTab.goto(link);
    await mailTab.getByRole('heading', { level: 1, name: 'Email Verified!' }).waitFor();

    // No reload, no focus: the other tabs hear it from this one.
    await send.getByTestId('verification-required').waitFor({ state: 'detached' });
    await account.getByTestId('unverified-warning').waitFor({ state: 'detached' });
    await account.getByText('Verified', { exact: true }).waitFor();
    expect(problems.all()).toEqual([]);
  });

  it('in another browser: the tab asks again when it is looked at again', async () => {
    const email = uniqueEmail('phone');
    const token = await signUp(email);
    const page = await browser.sharedPage(auth.server);
    await page.goto('/contact');
    await storeToken(page, token);
    await page.goto('/app/send');
    await page.getByTestId('verification-required').waitFor();

    // The link is opened on another device: nothing reaches this browser.
    const link = linkIn(await waitForMail(auth.server, email, /^Verify your email/), auth.server, '/verify');
    const res = await fetch(`${auth.server.baseUrl}/api/auth/verify-email`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(link, auth.server.baseUrl).searchParams.get('token') }),
    });
    expect(res.status).toBe(200);
    expect(await page.getByTestId('verification-required').count()).toBe(1);

    // The user comes back to the tab (the browser reports it visible again).
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange', { bubbles: true })));
    await page.getByTestId('verification-required').waitFor({ state: 'detached' });
  });
});
