import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenDuringTest, setupBrowser, watchProblems } from '../support/browser.ts';
import { createUser, PASSWORD, uniqueEmail } from '../support/users.ts';
import {
  JumpClock,
  linkIn,
  seenMail,
  signOutThroughMenu,
  startAuthServer,
  submitSignIn,
  tokenOf,
  storeToken,
  waitForMail,
  type AuthServer,
} from '../support/auth-browser.ts';
import { expectToast } from '../support/toasts.ts';

/**
 * Links and paths that go wrong (docs/spec.md §4, §5, §8): missing, unknown and expired verification and
 * reset links, the social sign-in callback's error paths, guarded pages, and the forms' in-page
 * messages. The server's clock can jump ahead, so expiry is real without waiting.
 */

const browser = setupBrowser();
const clock = new JumpClock();
let auth: AuthServer;

beforeAll(async () => {
  auth = await startAuthServer({ env: { CAPTCHA_PROVIDER: 'none' }, deps: { clock } });
});
afterAll(async () => auth?.close());

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });

/** The error a field shows under itself (what its aria-describedby names), or null. */
async function fieldError(page: Page, label: string): Promise<string | null> {
  const field = page.getByLabel(label, { exact: true });
  if ((await field.getAttribute('aria-invalid')) !== 'true') return null;
  const ids = (await field.getAttribute('aria-describedby'))?.split(' ') ?? [];
  const error = ids.find((id) => id.endsWith('-error'));
  return error ? (await page.locator(`#${error}`).innerText()).trim() : null;
}

/** Everything the auth card says, in reading order, on one line. */
async function cardText(page: Page): Promise<string> {
  const card = page.getByRole('group').filter({ has: page.locator('#auth-title') });
  return (await card.innerText())
    .replace(/\s+/g, ' ')
    .replace(/^Close /, '')
    .trim();
}

/** The file's shared page, signed out, watched and on `path` (one at a time: each call moves it). */
async function open(path: string, ignore: RegExp[] = []) {
  const page = await browser.sharedPage(auth.server);
  const problems = watchProblems(page, { ignore });
  await page.goto(path);
  return { page, problems };
}

async function signUpThroughApi(email: string): Promise<string> {
  const res = await fetch(`${auth.server.baseUrl}/api/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

describe('verification links', () => {
  it('without a token: Invalid verification link, with a way on', async () => {
    const { page, problems } = await open('/verify');
    await heading(page, 'Invalid verification link').waitFor();
    expect(await cardText(page)).toBe(
      'Invalid verification link This link is missing its verification code. Open the link from the email exactly as it was sent. Sign in to get a new one. Sign In',
    );
    expect(await page.getByRole('main').getByRole('link', { name: 'Sign In' }).getAttribute('href')).toBe(
      '/signin',
    );
    expect(problems.all()).toEqual([]);
  });

  it('with an unknown token: says it once, on the page, in sentences', async () => {
    const { page, problems } = await open('/verify?token=not-a-real-token-at-all', [
      /verify-email 400/,
      /status of 400/,
    ]);
    await heading(page, 'Invalid verification link').waitFor();
    expect(await cardText(page)).toBe(
      'Invalid verification link This link has expired or has already been used. Verification links work once and expire after 24 hours. Sign in to get a new one. Sign In',
    );
    // No toast repeats it.
    await page.waitForLoadState('networkidle');
    expect(await page.getByRole('region', { name: 'Notifications' }).locator('[data-kind]').count()).toBe(0);
    expect(problems.all()).toEqual([]);
  });

  it('signed in and unverified, a dead link offers a new one right there', async () => {
    const email = uniqueEmail('dead-link');
    const token = await signUpThroughApi(email);
    await waitForMail(auth.server, email, /^Verify your email/);
    const seen = await seenMail(auth.server, email);
    const { page } = await open('/', [/verify-email 400/, /status of 400/]);
    await storeToken(page, token);
    await page.goto('/verify?token=not-a-real-token-at-all');
    await heading(page, 'Invalid verification link').waitFor();
    expect(await cardText(page)).toContain('Send yourself a new one.');
    await page.getByRole('button', { name: 'Send a New Link' }).click();
    await expectToast(page, 'Verification email sent', 'Check your inbox for a new verification link');
    await waitForMail(auth.server, email, /^Verify your email/, seen);
  });

  it('signed in and already verified, a used link says the address is verified, not that the link is invalid', async () => {
    const email = uniqueEmail('twice');
    const token = await signUpThroughApi(email);
    const link = linkIn(await waitForMail(auth.server, email, /^Verify your email/), auth.server, '/verify');
    const { page, problems } = await open('/', [/verify-email 400/, /status of 400/]);
    await storeToken(page, token);
    await page.goto(link);
    await heading(page, 'Email Verified!').waitFor();
    await page.goto(link); // the second click on the same mail
    await heading(page, 'Email Already Verified').waitFor();
    expect(await cardText(page)).toBe(
      `Email Already Verified ${email} is verified, so there is nothing more to do here. You can send test emails. Start Sending Emails`,
    );
    expect(
      await page.getByRole('region', { name: 'Notifications' }).locator('[data-kind="error"]').count(),
    ).toBe(0);
    expect(problems.all()).toEqual([]);
  });

  it('an expired link (24 h) is invalid; a fresh one verifies once, then is invalid too', async () => {
    const email = uniqueEmail('expiry');
    await signUpThroughApi(email);
    const first = await waitForMail(auth.server, email, /^Verify your email/);
    clock.advance(24 * 60 * 60_000 + 60_000);
    const { page } = await open(linkIn(first, auth.server, '/verify'), [/verify-email 400/, /status of 400/]);
    await heading(page, 'Invalid verification link').waitFor();

    // A new link (resend, signed in) works, once.
    const seen = await seenMail(auth.server, email);
    const signIn = await fetch(`${auth.server.baseUrl}/api/auth/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password: PASSWORD }),
    });
    // Each step's status with its answer: a failure says which step refused, and why.
    const signedIn = { status: signIn.status, body: (await signIn.json()) as { token?: string } };
    expect(signedIn).toMatchObject({ status: 200, body: { token: expect.any(String) } });
    const resend = await fetch(`${auth.server.baseUrl}/api/auth/resend-verification`, {
      method: 'POST',
      headers: { authorization: `Bearer ${signedIn.body.token}` },
    });
    expect({ status: resend.status, body: await resend.text() }).toMatchObject({ status: 200 });
    const second = await waitForMail(auth.server, email, /^Verify your email/, seen);
    const link = linkIn(second, auth.server, '/verify');
    await page.goto(link);
    await heading(page, 'Email Verified!').waitFor();
    await page.goto(link);
    await heading(page, 'Invalid verification link').waitFor();
  });
});

describe('reset links', () => {
  it('without a token: the Invalid Reset Link page says so once, in sentences, with a way to a new link', async () => {
    const { page, problems } = await open('/reset-password');
    await heading(page, 'Invalid reset link').waitFor();
    expect(await cardText(page)).toBe(
      'Invalid reset link This link is missing its reset code. Open the link from the email exactly as it was sent, or request a new one. Request a New Link Back to Sign In',
    );
    await page.getByRole('link', { name: 'Request a New Link' }).click();
    await page.waitForURL('**/forgot-password');
    await heading(page, 'Forgot Your Password?').waitFor();
    expect(problems.all()).toEqual([]);
  });

  it('an unknown token shows Invalid Reset Link once the server refuses it', async () => {
    const { page, problems } = await open('/reset-password?token=unknown-reset-token', [
      /reset-password 400/,
      /status of 400/,
    ]);
    await page.getByLabel('New password', { exact: true }).fill('a long enough password');
    await page.getByLabel('Confirm new password', { exact: true }).fill('a long enough password');
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await heading(page, 'Invalid reset link').waitFor();
    expect(await cardText(page)).toBe(
      'Invalid reset link This link has expired or has already been used. Reset links work once and expire after 30 minutes. Request a New Link Back to Sign In',
    );
    expect(problems.all()).toEqual([]);
  });

  it('the token leaves the address bar as soon as the page has read it, and the link still works', async () => {
    const email = uniqueEmail('reset-bar');
    await signUpThroughApi(email);
    await fetch(`${auth.server.baseUrl}/api/auth/request-password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    const mail = await waitForMail(auth.server, email, /^Reset your Proofmail password/);
    const { page, problems } = await open(linkIn(mail, auth.server, '/reset-password'));
    await page.getByRole('heading', { level: 1, name: 'Choose a new password' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/reset-password');
    expect(new URL(page.url()).search).toBe('');
    expect(await page.evaluate(() => window.location.href)).not.toContain('token');
    await page.getByLabel('New password', { exact: true }).fill('a long enough password');
    await page.getByLabel('Confirm new password', { exact: true }).fill('a long enough password');
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await expectToast(page, 'Password reset successfully.');
    await page.waitForURL('**/signin');
    expect(problems.all()).toEqual([]);
  });

  it('refuses eight spaces and a common password at the field, before and after the server', async () => {
    const email = uniqueEmail('reset-rule');
    await signUpThroughApi(email);
    await fetch(`${auth.server.baseUrl}/api/auth/request-password-reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
    const mail = await waitForMail(auth.server, email, /^Reset your Proofmail password/);
    const { page, problems } = await open(linkIn(mail, auth.server, '/reset-password'), [
      /reset-password 400/,
      /status of 400/,
    ]);
    const field = page.getByLabel('New password', { exact: true });
    const submit = async (password: string) => {
      await field.fill(password);
      await page.getByLabel('Confirm new password', { exact: true }).fill(password);
      await page.getByRole('button', { name: 'Reset Password' }).click();
    };
    await submit(' '.repeat(8));
    expect(await page.getByRole('main').getByRole('alert').innerText()).toBe(
      'Password cannot be only spaces',
    );
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    await submit('Password1');
    await expectToast(
      page,
      'Failed to reset password',
      'This password is too common. Choose one that is harder to guess.',
    );
    expect(await page.getByRole('main').getByRole('alert').innerText()).toBe(
      'This password is too common. Choose one that is harder to guess.',
    );
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(problems.all()).toEqual([]);
  });

  it('an expired link (30 min) shows Invalid Reset Link; an unknown address still gets Check Your Email', async () => {
    const email = uniqueEmail('reset-expiry');
    await signUpThroughApi(email);
    const { page } = await open('/forgot-password', [/reset-password 400/, /status of 400/]);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    expect(await fieldError(page, 'Email')).toBe('Please enter your email address');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await heading(page, 'Check Your Email').waitFor();
    const mail = await waitForMail(auth.server, email, /^Reset your Proofmail password/);
    clock.advance(31 * 60_000);
    await page.goto(linkIn(mail, auth.server, '/reset-password'));
    await page.getByLabel('New password', { exact: true }).fill('a long enough password');
    await page.getByLabel('Confirm new password', { exact: true }).fill('a long enough password');
    await page.getByRole('button', { name: 'Reset Password' }).click();
    await heading(page, 'Invalid reset link').waitFor();

    // Nobody has this address: the page says exactly the same.
    const nobody = uniqueEmail('nobody');
    await page.goto('/forgot-password');
    await page.getByLabel('Email', { exact: true }).fill(nobody);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await heading(page, 'Check Your Email').waitFor();
    expect(await page.getByRole('main').innerText()).toContain(nobody);
  });
});

describe('forgot password', () => {
  it('checks the address at the field before asking the server', async () => {
    const { page, problems } = await open('/forgot-password');
    const asked: string[] = [];
    listenDuringTest(page, 'request', (req) => {
      if (req.url().includes('/api/auth/request-password-reset')) asked.push(req.postData() ?? '');
    });
    for (const typed of ['abc', 'abc@', 'someone@example']) {
      await page.getByLabel('Email', { exact: true }).fill(typed);
      await page.getByRole('button', { name: 'Send Reset Link' }).click();
      expect(await fieldError(page, 'Email'), typed).toBe('Please enter a valid email address');
      await heading(page, 'Forgot Your Password?').waitFor();
    }
    // Typing again clears the message.
    await page.getByLabel('Email', { exact: true }).fill('someone@example.com');
    expect(await fieldError(page, 'Email')).toBeNull();
    expect(asked).toEqual([]);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await heading(page, 'Check Your Email').waitFor();
    expect(asked).toHaveLength(1);
    expect(problems.all()).toEqual([]);
  });

  it('Check Your Email wraps a long address at its @ and dots on a phone, never inside a word', async () => {
    const page = await browser.pageWith(auth.server, undefined, { viewport: { width: 375, height: 740 } });
    const address = 'marketing.operations.team@newsletters.northwind-traders-international.example.com';
    await page.goto('/forgot-password');
    await page.getByLabel('Email', { exact: true }).fill(address);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await heading(page, 'Check Your Email').waitFor();
    const shown = page.locator('[data-email-address]');
    expect(await shown.innerText()).toBe(address);
    // Each piece between the break points sits on one line, and the address took several lines.
    const layout = await shown.evaluate((el) => {
      const pieces = [...el.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE);
      return pieces.map((piece) => {
        const range = document.createRange();
        range.selectNodeContents(piece);
        return {
          text: piece.textContent,
          lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size,
        };
      });
    });
    expect(
      layout.every((piece) => piece.lines === 1),
      JSON.stringify(layout),
    ).toBe(true);
    const tops = await shown.evaluate(
      (el) => new Set([...el.getClientRects()].map((r) => Math.round(r.top))).size,
    );
    expect(tops).toBeGreaterThan(1);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
  });
});

describe('social sign-in callback', () => {
  it('an error parameter goes to /signin carrying it', async () => {
    const { page, problems } = await open('/auth/callback?error=access_denied&provider=google');
    await page.waitForURL('**/signin?error=access_denied');
    expect(await page.getByRole('main').getByRole('alert').innerText()).toContain('Sign-in was cancelled');
    expect(problems.all()).toEqual([]);
  });

  it('a missing token gives no_token', async () => {
    const { page } = await open('/auth/callback?provider=github');
    await page.waitForURL('**/signin?error=no_token');
    expect(await page.getByRole('main').getByRole('alert').innerText()).toContain(
      'no sign-in token came back',
    );
  });

  it('a ticket that does not exchange gives auth_failed, stores nothing and leaves no ticket in the address', async () => {
    const { page, problems } = await open('/auth/callback?token=bogus-ticket-value&provider=google', [
      /exchange 400/,
      /status of 400/,
    ]);
    await page.waitForURL('**/signin?error=auth_failed');
    expect(await page.getByRole('main').getByRole('alert').innerText()).toContain('could not sign you in');
    expect(await tokenOf(page)).toBeNull();
    expect(page.url()).not.toContain('bogus-ticket-value');
    expect(problems.all()).toEqual([]);
  });

  it('an unknown error code gets the generic message, and text from the link is never shown as prose', async () => {
    const { page } = await open('/signin?error=Your%20account%20is%20locked.%20Call%20us');
    const text = await page.getByRole('main').getByRole('alert').innerText();
    expect(text).toContain('Social sign-in failed');
    expect(text).not.toContain('Call us');
    await page.goto('/signin?error=temporarily_unavailable');
    expect(await page.getByRole('main').getByRole('alert').innerText()).toContain(
      'Error code: temporarily_unavailable',
    );
  });
});

describe('guards and forms', () => {
  it('the app redirects to /signin when signed out, and sign-in returns to the page asked for', async () => {
    const { page, problems } = await open('/app/account');
    await page.waitForURL('**/signin');
    await heading(page, 'Welcome Back').waitFor();
    const email = uniqueEmail('guard');
    await signUpThroughApi(email);
    await submitSignIn(page, email, PASSWORD);
    await expectToast(page, 'Welcome back!');
    await page.waitForURL('**/app/account');
    // Signed in, / and /signin lead into the app.
    await page.goto('/');
    await page.waitForURL('**/app/send');
    await page.goto('/signin');
    await page.waitForURL('**/app/send');
    expect(problems.all()).toEqual([]);
  });

  it('a stored token the server no longer knows is dropped and the app sends the visitor to sign in', async () => {
    const { page } = await open('/contact', [/\/api\/auth\/me 401/, /status of 401/]);
    await storeToken(page, 'stale-token-from-another-life');
    await page.goto('/app/send');
    await page.waitForURL('**/signin');
    expect(await tokenOf(page)).toBeNull();
    // The landing page shows for such a visitor too.
    await storeToken(page, 'stale-token-again');
    await page.goto('/');
    await page.getByRole('link', { name: 'Get Started Free' }).first().waitFor();
    expect(new URL(page.url()).pathname).toBe('/');
    expect(await tokenOf(page)).toBeNull();
  });

  it('sign-in and sign-up show the in-page messages; failures come as toasts', async () => {
    const { page } = await open('/signin', [
      /signin (401|503)/,
      /signup (409|502)/,
      /status of (40[19]|50[23])/,
    ]);
    // No social providers are configured on this server; the spec's buttons show all the same.
    await page.getByRole('link', { name: 'Continue with GitHub' }).waitFor();
    expect(await page.getByRole('link', { name: /Continue with/ }).allInnerTexts()).toEqual([
      'Continue with Google',
      'Continue with GitHub',
    ]);
    await page.getByRole('button', { name: 'Sign In', exact: true }).click();
    expect(await page.getByRole('main').getByRole('alert').innerText()).toBe('Please fill in all fields');
    await submitSignIn(page, uniqueEmail('nobody'), 'whatever-password');
    await expectToast(page, 'Sign in failed', 'Invalid email or password');
    // Show/hide password.
    const password = page.getByLabel('Password', { exact: true });
    expect(await password.getAttribute('type')).toBe('password');
    await page.getByRole('button', { name: 'Show password' }).click();
    expect(await password.getAttribute('type')).toBe('text');
    await page.getByRole('button', { name: 'Hide password' }).click();
    expect(await password.getAttribute('type')).toBe('password');

    await page.getByRole('link', { name: 'Sign up' }).click();
    await heading(page, 'Create Your Account').waitFor();
    // No captcha on this server: nothing to solve, Submit is on.
    expect(await page.locator('altcha-widget').count()).toBe(0);
    const create = page.getByRole('button', { name: 'Create Account' });
    await create.click();
    expect(await page.getByRole('main').getByRole('alert').innerText()).toBe('Please fill in all fields');
    const email = uniqueEmail('taken');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Password', { exact: true }).fill('short');
    await create.click();
    expect(await page.getByRole('main').getByRole('alert').innerText()).toBe(
      'Password must be at least 8 characters',
    );
    await signUpThroughApi(email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await create.click();
    await expectToast(page, 'Sign up failed', 'An account with this email already exists');
    expect(new URL(page.url()).pathname).toBe('/signup');

    // An answer without an error text (a proxy's 502): the spec's fallbacks.
    const bare = (status: number) => (route: Route) => route.fulfill({ status, body: '' });
    await page.route('**/api/auth/signup', bare(502));
    await create.click();
    await expectToast(page, 'Sign up failed', 'signup failed: 502');
    await page.goto('/signin');
    await page.route('**/api/auth/signin', bare(503));
    await submitSignIn(page, email, PASSWORD);
    await expectToast(page, 'Sign in failed', 'signin failed: 503');
  });

  it('sign-up reports an invalid address at the field, not only in a toast, and sends nothing', async () => {
    const { page, problems } = await open('/signup');
    const sent: string[] = [];
    listenDuringTest(page, 'request', (req) => {
      if (req.url().endsWith('/api/auth/signup')) sent.push(req.url());
    });
    await page.getByLabel('Email', { exact: true }).fill('ana@example');
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create Account' }).click();
    expect(await fieldError(page, 'Email')).toBe('Please enter a valid email address');
    expect(
      await page.getByLabel('Email', { exact: true }).evaluate((el) => el === document.activeElement),
    ).toBe(true);
    expect(sent).toEqual([]);
    await page.getByLabel('Email', { exact: true }).fill('ana@example.com');
    expect(await fieldError(page, 'Email')).toBeNull();
    expect(problems.all()).toEqual([]);
  });

  it('an address with an internationalised domain signs up, gets its mail and resets in its ASCII form', async () => {
    const { page, problems } = await open('/signup');
    const local = uniqueEmail('idn').split('@')[0]!;
    const typed = `${local}@bücher.example`;
    const ascii = `${local}@xn--bcher-kva.example`;
    await page.getByLabel('Email', { exact: true }).fill(typed);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Create Account' }).click();
    // Accepted at the field and by the server (it was "Please enter a valid email address").
    await expectToast(page, 'Account created successfully!');
    await page.waitForURL('**/app/send');
    // The account, and the mail, are the address's ASCII form.
    await waitForMail(auth.server, ascii, /^Verify your email/);
    await page.goto('/app/account');
    expect((await page.getByTestId('account-email').innerText()).trim()).toBe(ascii);

    await signOutThroughMenu(page);
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    // The sign-in page (and its own Email field) stays until the next page's chunk has loaded.
    await heading(page, 'Forgot Your Password?').waitFor();
    await page.getByLabel('Email', { exact: true }).fill(typed);
    await page.getByRole('button', { name: 'Send Reset Link' }).click();
    await heading(page, 'Check Your Email').waitFor();
    await waitForMail(auth.server, ascii, /^Reset your Proofmail password/);
    expect(problems.all()).toEqual([]);
  });

  it('sign-in: Tab goes from Email to Password; Forgot password? comes after the field', async () => {
    const { page } = await open('/signin');
    await page.getByLabel('Email', { exact: true }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('signin-password');
    const order = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('main a, main input, main button')]
        .filter((el) => el.tabIndex >= 0)
        .map((el) => el.id || el.innerText.trim() || el.getAttribute('aria-label')),
    );
    expect(order.slice(order.indexOf('signin-email'))).toEqual([
      'signin-email',
      'signin-password',
      'Show password',
      'Forgot password?',
      'Sign In',
      'Sign up',
    ]);
  });

  it('a provider this server has not set up is explained on either page it returns to', async () => {
    for (const path of ['/signin', '/signup']) {
      const { page } = await open(`${path}?error=provider_not_configured`);
      expect(await page.getByRole('main').getByRole('alert').first().innerText()).toBe(
        'That sign-in method is not available on this server.',
      );
      expect(await page.getByRole('link', { name: 'Continue with Google' }).getAttribute('href')).toBe(
        '/api/auth/google',
      );
      expect(await page.getByRole('link', { name: 'Continue with GitHub' }).getAttribute('href')).toBe(
        '/api/auth/github',
      );
    }
  });

  it('the verify page after sign-in refreshes the user: the app stops asking to verify', async () => {
    const email = uniqueEmail('refresh');
    const token = await signUpThroughApi(email);
    const page = await browser.sharedPage(auth.server, { token });
    await page.goto('/app/account');
    await page.getByTestId('unverified-warning').waitFor();
    const mail = await waitForMail(auth.server, email, /^Verify your email/);
    await page.goto(linkIn(mail, auth.server, '/verify'));
    await heading(page, 'Email Verified!').waitFor();
    await page.getByRole('link', { name: 'Start Sending Emails' }).click();
    await page.waitForURL('**/app/send');
    await page.goto('/app/account');
    await page.getByTestId('account-email').waitFor();
    expect(await page.getByTestId('unverified-warning').count()).toBe(0);
  });

  it('users made by the test helper get the shell', async () => {
    const made = await createUser(auth.server.db);
    const page = await browser.sharedPage(auth.server, made);
    await page.goto('/app');
    await page.waitForURL('**/app/send');
  });
});
