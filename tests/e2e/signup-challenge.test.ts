import type { Page, Request, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startAuthServer, type AuthServer } from '../support/auth-browser.ts';
import { intercept } from '../support/routes.ts';
import { expectToast } from '../support/toasts.ts';
import { PASSWORD, uniqueEmail } from '../support/users.ts';

/**
 * Sign-up and its bot challenge (docs/spec.md §2, §5): submitting before the challenge is solved
 * says "Please complete the CAPTCHA" however the form is submitted; a solved challenge survives an
 * answer that did not use it and is replaced after one that did.
 */

const browser = setupBrowser();
let auth: AuthServer;

beforeAll(async () => {
  auth = await startAuthServer();
});
afterAll(async () => auth?.close());

const submit = (page: Page) => page.getByRole('button', { name: 'Create Account' });
const formAlert = (page: Page) => page.locator('#signup-form-error');

/** Holds the challenge download until `release()`: the challenge cannot be solved before. */
async function holdChallenge(page: Page): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route('**/api/auth/captcha/challenge', async (route: Route) => {
    await released;
    await route.continue();
  });
  return release;
}

/**
 * A page for these tests. It records, with their times, the challenge widget's states, every form
 * submit (with the button's state then), the challenge and sign-up requests and how they ended,
 * each toast as it appears, and page errors. A failing test adds them to its report (a second
 * error, so they reach the run's summary): a race shows its order.
 */
async function signUpPage(): Promise<Page> {
  const page = await browser.newPage({ baseURL: auth.server.baseUrl });
  const started = Date.now();
  const events: string[] = [];
  const at = () => `${String(Date.now() - started).padStart(6)} ms`;
  await page.exposeFunction('recordSignUpEvent', (what: string) => events.push(`${at()} ${what}`));
  await page.addInitScript(() => {
    const record = (window as unknown as { recordSignUpEvent: (what: string) => void }).recordSignUpEvent;
    // The widget's own event; a capturing listener sees it whether or not it bubbles.
    document.addEventListener(
      'statechange',
      (e) => record(`state ${String((e as CustomEvent<{ state?: string }>).detail?.state)}`),
      true,
    );
    document.addEventListener(
      'submit',
      () => {
        const button = document.querySelector('button[type="submit"]');
        record(`submit (button aria-disabled=${button?.getAttribute('aria-disabled') ?? 'none'})`);
      },
      true,
    );
    new MutationObserver((changes) => {
      for (const change of changes)
        for (const node of change.addedNodes) {
          if (!(node instanceof HTMLElement)) continue;
          const toasts = node.matches('[data-kind]')
            ? [node]
            : [...node.querySelectorAll<HTMLElement>('[data-kind]')];
          for (const t of toasts) record(`toast ${t.dataset.kind}: ${t.innerText.replace(/\s+/g, ' ')}`);
        }
    }).observe(document, { subtree: true, childList: true });
  });
  const recordRequest = (req: Request, outcome = '') => {
    const { pathname } = new URL(req.url());
    if (/\/api\/auth\/(captcha\/challenge|signup)$/.test(pathname))
      events.push(`${at()} ${req.method()} ${pathname}${outcome}`);
  };
  page.on('request', (req) => recordRequest(req));
  page.on('requestfinished', (req) => recordRequest(req, ' finished'));
  page.on('requestfailed', (req) => recordRequest(req, ` failed: ${req.failure()?.errorText}`));
  page.on('pageerror', (err) => events.push(`${at()} page error: ${err.message}`));
  onTestFinished(({ task }) => {
    if (task.result?.state === 'fail') throw new Error(`the page's timeline:\n${events.join('\n')}`);
  });
  return page;
}

/** The first challenge download answers 503; the rest go through. Returns the download count. */
async function failFirstDownload(page: Page): Promise<() => number> {
  const downloads = await intercept(
    page,
    '**/api/auth/captcha/challenge',
    (route) => route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"Busy"}' }),
    { times: 1 },
  );
  return downloads.count;
}

async function fill(page: Page, email: string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
}

/** The payload of every sign-up request the page sends. */
function signUpTokens(page: Page): string[] {
  const tokens: string[] = [];
  page.on('request', (req) => {
    if (req.url().endsWith('/api/auth/signup') && req.method() === 'POST') {
      tokens.push((JSON.parse(req.postData() ?? '{}') as { captchaToken?: string }).captchaToken ?? '');
    }
  });
  return tokens;
}

const solved = (page: Page) =>
  page.locator('button[type="submit"]:not([aria-disabled])').waitFor({ timeout: 30_000 });

describe('sign-up before the challenge is solved', () => {
  it('Enter, a click and a password manager’s submit all say "Please complete the CAPTCHA"', async () => {
    const page = await signUpPage();
    const problems = watchProblems(page);
    const release = await holdChallenge(page);
    const tokens = signUpTokens(page);
    await page.goto('/signup');
    await page.locator('altcha-widget').waitFor({ state: 'attached' });
    // Announced and shown as disabled (docs/spec.md §2: Submit is disabled until it is solved).
    expect(await submit(page).getAttribute('aria-disabled')).toBe('true');
    await fill(page, uniqueEmail('early'));

    await page.getByLabel('Password', { exact: true }).press('Enter');
    expect(await formAlert(page).innerText()).toBe('Please complete the CAPTCHA');

    await page.reload();
    await fill(page, uniqueEmail('early'));
    await page.evaluate(() => document.querySelector('form')!.requestSubmit());
    expect(await formAlert(page).innerText()).toBe('Please complete the CAPTCHA');
    await submit(page).dispatchEvent('click'); // what a script clicking the button does
    expect(await formAlert(page).innerText()).toBe('Please complete the CAPTCHA');
    expect(tokens).toEqual([]);

    // Once solved, the message goes and the same submit goes through.
    release();
    await solved(page);
    expect(await formAlert(page).count()).toBe(0);
    await page.getByLabel('Password', { exact: true }).press('Enter');
    await expectToast(page, 'Account created successfully!');
    await page.waitForURL('**/app/send');
    expect(tokens).toHaveLength(1);
    expect(problems.all()).toEqual([]);
  });
});

describe('a form filled in while the challenge is still loading', () => {
  it('solves one challenge once the widget is ready, without failing first', async () => {
    const page = await signUpPage();
    const problems = watchProblems(page);
    // The widget's script runs (and its element works) before its stylesheet and proof-of-work
    // workers are in: hold the stylesheet, and type into the form in that moment.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/altcha-[^/]*\.css$/, async (route: Route) => {
      await released;
      await route.continue();
    });
    const downloads: string[] = [];
    page.on('request', (req) => {
      if (req.url().includes('/api/auth/captcha/challenge')) downloads.push(req.url());
    });
    await page.goto('/signup');
    await page.waitForFunction(
      () =>
        typeof (document.querySelector('altcha-widget') as { configure?: unknown } | null)?.configure ===
        'function',
    );
    await fill(page, uniqueEmail('early'));
    await page.waitForTimeout(500);
    release();
    await solved(page);
    await submit(page).click();
    await expectToast(page, 'Account created successfully!');
    expect(downloads).toHaveLength(1);
    expect(problems.all()).toEqual([]);
  });
});

describe('a challenge that fails to download', () => {
  it('is tried again by itself, and the sign-up goes through', async () => {
    const page = await signUpPage();
    const problems = watchProblems(page, { ignore: [/captcha\/challenge/, /status of 503/] });
    const downloads = await failFirstDownload(page);
    await page.goto('/signup');
    await fill(page, uniqueEmail('retry'));
    await solved(page);
    expect(downloads()).toBe(2);
    await submit(page).click();
    await expectToast(page, 'Account created successfully!');
    expect(problems.all()).toEqual([]);
  });

  it('a focus while the retry waits starts it once: the wait does not start it over', async () => {
    const page = await signUpPage();
    const problems = watchProblems(page, { ignore: [/captcha\/challenge/, /status of 503/] });
    const downloads = await failFirstDownload(page);
    await page.goto('/signup');
    await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('refocus'));
    // The first download failed; the retry waits a second. Moving to the next field starts it now.
    await page.waitForFunction(
      () =>
        (document.querySelector('altcha-widget') as { getState?: () => string } | null)?.getState?.() ===
        'error',
    );
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await solved(page);
    await page.waitForTimeout(1_500); // past the retry's wait
    expect(downloads()).toBe(2);
    await submit(page).click();
    await expectToast(page, 'Account created successfully!');
    expect(problems.all()).toEqual([]);
  });
});

describe('after a failed sign-up', () => {
  it('keeps a solution the server never used, so the next try needs no new one', async () => {
    const page = await signUpPage();
    const problems = watchProblems(page, { ignore: [/signup/, /ERR_CONNECTION_RESET/] });
    const tokens = signUpTokens(page);
    await page.goto('/signup');
    await fill(page, uniqueEmail('kept'));
    await solved(page);
    // The request never reaches the server (the connection drops).
    await intercept(page, '**/api/auth/signup', (route) => route.abort('connectionreset'), { times: 1 });
    await submit(page).click();
    await expectToast(page, 'Sign up failed', 'Network error: check your connection and try again');
    expect(await submit(page).getAttribute('aria-disabled')).toBeNull();
    await submit(page).click();
    await expectToast(page, 'Account created successfully!');
    expect(tokens).toHaveLength(2);
    expect(tokens[1]).toBe(tokens[0]);
    expect(problems.all()).toEqual([]);
  });

  it('replaces a solution the server spent (an address already taken)', async () => {
    const email = uniqueEmail('taken');
    const first = await signUpPage();
    await first.goto('/signup');
    await fill(first, email);
    await solved(first);
    await submit(first).click();
    await expectToast(first, 'Account created successfully!');

    const page = await signUpPage();
    const tokens = signUpTokens(page);
    await page.goto('/signup');
    await fill(page, email);
    await solved(page);
    await submit(page).click();
    await expectToast(page, 'Sign up failed', 'An account with this email already exists');
    // The used solution is gone: a fresh challenge is solved before the next try.
    await solved(page);
    await page.getByLabel('Email', { exact: true }).fill(uniqueEmail('second-try'));
    await submit(page).click();
    await expectToast(page, 'Account created successfully!');
    expect(tokens).toHaveLength(2);
    expect(tokens[1]).not.toBe(tokens[0]);
  });
});
