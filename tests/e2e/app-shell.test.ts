import type { Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { createUser } from '../support/users.ts';
import { startAuthServer, tokenOf, waitForMail, type AuthServer } from '../support/auth-browser.ts';
import { intercept } from '../support/routes.ts';
import { expectToast } from '../support/toasts.ts';

/**
 * The signed-in shell under /app (docs/spec.md §2) and the profile and account screens: structure, the
 * loading and redirect states, and what the user sees when a call fails (simulated in the browser
 * by answering the request with a 500).
 */

const browser = setupBrowser();
let auth: AuthServer;

beforeAll(async () => {
  auth = await startAuthServer({ env: { CAPTCHA_PROVIDER: 'none', SUPPORT_EMAIL: 'help@proofmail.test' } });
});
afterAll(async () => auth?.close());

const heading = (page: Page, name: string) => page.getByRole('heading', { level: 1, name, exact: true });
const fail500 = (route: Route) =>
  route.fulfill({ status: 500, contentType: 'application/json', body: '{"error":"Boom on the server"}' });

/**
 * The file's shared page, signed in as a fresh user (made directly in the database, with a live
 * session) from its next page load.
 */
async function signedIn(options: Parameters<typeof createUser>[1] = {}, ignore: RegExp[] = []) {
  const made = await createUser(auth.server.db, options);
  const page = await browser.sharedPage(auth.server, made);
  const problems = watchProblems(page, { ignore });
  return { page, problems, ...made };
}

describe('app shell', () => {
  it('has the tabs, Feedback, help, avatar menu, footer and a 1120px content column', async () => {
    const { page, problems, user } = await signedIn();
    await page.goto('/app');
    await page.waitForURL('**/app/send');
    await heading(page, 'Send Test Email').waitFor();

    const header = page.getByRole('banner');
    const tabs = header.getByRole('navigation', { name: 'App' });
    expect(await tabs.getByRole('link', { name: 'Send' }).getAttribute('href')).toBe('/app/send');
    expect(await tabs.getByRole('link', { name: 'Send' }).getAttribute('aria-current')).toBe('page');
    expect(await tabs.getByRole('link', { name: 'Emails' }).getAttribute('href')).toBe('/app/history');
    expect(await tabs.getByRole('link', { name: 'Emails' }).getAttribute('aria-current')).toBeNull();
    expect(await header.getByRole('link', { name: 'Feedback' }).getAttribute('href')).toBe(
      'mailto:help@proofmail.test?subject=Proofmail%20feedback',
    );
    expect(await header.getByRole('link', { name: 'Help' }).getAttribute('href')).toBe('/contact');

    const footer = page.getByRole('contentinfo');
    for (const [name, href] of Object.entries({
      'Get Started': '/signup',
      'Sign In': '/signin',
      'Terms of Service': '/terms',
      'Privacy Policy': '/privacy',
      Contact: '/contact',
    })) {
      expect(await footer.getByRole('link', { name, exact: true }).getAttribute('href')).toBe(href);
    }
    const column = page.locator('main > div').first();
    expect(await column.evaluate((el) => getComputedStyle(el).maxWidth)).toBe('1120px');

    // The Emails tab.
    await tabs.getByRole('link', { name: 'Emails' }).click();
    await page.waitForURL('**/app/history');
    await heading(page, 'Emails').waitFor();
    expect(await tabs.getByRole('link', { name: 'Emails' }).getAttribute('aria-current')).toBe('page');

    // Avatar menu: the email, then Profile, Account, Plan, Sign Out.
    const menuButton = header.getByRole('button', { name: 'Account menu' });
    await menuButton.click();
    const menu = page.getByRole('menu');
    expect(await menu.innerText()).toContain(user.email);
    expect(await menu.getByRole('menuitem').allInnerTexts()).toEqual([
      'Profile',
      'Account',
      'Plan',
      'Sign Out',
    ]);
    await menu.getByRole('menuitem', { name: 'Profile' }).click();
    await page.waitForURL('**/app/profile');
    await heading(page, 'Profile').waitFor();
    await menuButton.click();
    await page.getByRole('menuitem', { name: 'Account' }).click();
    await page.waitForURL('**/app/account');
    await heading(page, 'Account').waitFor();
    await menuButton.click();
    await page.getByRole('menuitem', { name: 'Plan' }).click();
    await page.waitForURL('**/plan');
    // A signed-in free user sees Current Plan, disabled.
    const current = page.locator('[data-plan="free"]').getByRole('button', { name: 'Current Plan' });
    await current.waitFor();
    expect(await current.isDisabled()).toBe(true);

    await page.goto('/app/about');
    await heading(page, 'About Proofmail').waitFor();
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign Out' }).click();
    await page.waitForURL('**/signin');
    expect(await tokenOf(page)).toBeNull();
    // Signed out, the app is closed.
    await page.goto('/app/account');
    await page.waitForURL('**/signin');
    expect(problems.all()).toEqual([]);
  });

  it('shows a spinner while the session is checked, then the page', async () => {
    const { page } = await signedIn();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/api/auth/me', async (route) => {
      await held;
      await route.continue();
    });
    await page.goto('/app/about');
    await page.getByRole('status').filter({ hasText: 'Loading your account' }).waitFor();
    expect(await page.getByRole('banner').count()).toBe(0);
    release();
    await heading(page, 'About Proofmail').waitFor();
  });

  it('a sign-out the server fails still signs this browser out, and says so', async () => {
    const { page } = await signedIn({}, [/signout 500/, /status of 500/]);
    await page.route('**/api/auth/signout', fail500);
    await page.goto('/app/about');
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Sign Out' }).click();
    await page.waitForURL('**/signin');
    await expectToast(page, 'Sign out failed', 'signout failed: 500');
    expect(await tokenOf(page)).toBeNull();
  });

  it('signing out in one tab signs the other tabs out too', async () => {
    const made = await createUser(auth.server.db);
    const context = await browser.signedInContext(auth.server, made);
    const first = await context.newPage();
    await first.goto('/app/about');
    const second = await context.newPage();
    await second.goto('/app/account');
    await heading(second, 'Account').waitFor();
    await first.getByRole('button', { name: 'Account menu' }).click();
    await first.getByRole('menuitem', { name: 'Sign Out' }).click();
    await first.waitForURL('**/signin');
    await second.waitForURL('**/signin');
  });

  it('on a phone the tabs get their own row and nothing overflows, not even the menu of a long address', async () => {
    const made = await createUser(auth.server.db, {
      email: `a.very.long.address.for.wrapping.${Date.now()}@subdomain.example-company.com`,
    });
    const page = await browser.pageWith(auth.server, made, { viewport: { width: 375, height: 740 } });
    await page.goto('/app/account');
    await heading(page, 'Account').waitFor();
    const tabs = page.getByRole('navigation', { name: 'App' });
    expect(await tabs.count()).toBe(1); // the desktop row is hidden
    expect(await tabs.getByRole('link', { name: 'Emails' }).isVisible()).toBe(true);
    expect(
      await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
    ).toBeLessThanOrEqual(0);
    // The avatar menu stays on screen; the address is cut short with an ellipsis (its title has it whole).
    await page.getByRole('button', { name: 'Account menu' }).click();
    const menu = page.getByRole('menu');
    const box = (await menu.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(375);
    expect(await menu.getByTitle(made.user.email).isVisible()).toBe(true);
    for (const item of await menu.getByRole('menuitem').all()) {
      const itemBox = (await item.boundingBox())!;
      expect(itemBox.x).toBeGreaterThanOrEqual(0);
    }
  });
});

describe('profile', () => {
  it('shows the email, plan badge and member-since date', async () => {
    const { page, problems, user } = await signedIn();
    const joined = new Date('2025-03-14T12:00:00Z');
    await auth.server.db.updateTable('users').set({ created_at: joined }).where('id', '=', user.id).execute();
    await page.goto('/app/profile');
    await heading(page, 'Profile').waitFor();
    expect(await page.getByTestId('profile-email').innerText()).toBe(user.email);
    expect(await page.getByTestId('profile-plan').innerText()).toBe('Free plan');
    expect(await page.getByTestId('profile-member-since').innerText()).toBe('March 14, 2025');
    expect(problems.all()).toEqual([]);
  });

  it('a pro user has the Pro badge', async () => {
    const { page } = await signedIn({ plan: 'pro' });
    await page.goto('/app/profile');
    expect(await page.getByTestId('profile-plan').innerText()).toBe('Pro plan');
  });

  it('a failed load says Failed to load profile data, toasts Failed to load profile, and retries', async () => {
    const { page } = await signedIn({}, [/user\/me 500/, /status of 500/]);
    const failing = await intercept(page, '**/api/user/me', fail500);
    await page.goto('/app/profile');
    await page.getByText('Failed to load profile data', { exact: true }).waitFor({ timeout: 20_000 });
    await expectToast(page, 'Failed to load profile', 'Boom on the server');
    failing.off();
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('profile-email').waitFor();
  });

  it('a failed usage load is the profile failing too (the profile reads user and usage), and retries', async () => {
    const { page } = await signedIn({}, [/user\/usage 500/, /status of 500/]);
    const failing = await intercept(page, '**/api/user/usage', fail500);
    await page.goto('/app/profile');
    await page.getByText('Failed to load profile data', { exact: true }).waitFor({ timeout: 20_000 });
    await expectToast(page, 'Failed to load profile', 'Boom on the server');
    // A retry that fails again keeps the failure on show, busy, with the focus on its button: no
    // half-loaded profile flashes meanwhile.
    const again = page.getByRole('button', { name: 'Try again' });
    await again.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => again.getAttribute('aria-busy')).toBe('true');
    expect(await page.getByTestId('profile-email').count()).toBe(0);
    expect(await again.evaluate((el) => el === document.activeElement)).toBe(true);
    await expect.poll(() => again.getAttribute('aria-busy'), { timeout: 20_000 }).toBe(null);
    expect(await again.evaluate((el) => el === document.activeElement)).toBe(true);
    failing.off();
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('profile-email').waitFor();
    await page
      .locator('[data-slot="usage"]')
      .getByText(/emails? remaining this month|monthly limit/)
      .waitFor();
  });
});

describe('account', () => {
  it('shows account info and the plan with its subscription status badge colours', async () => {
    const expected = {
      active: ['Active', 'green'],
      trialing: ['Trialing', 'blue'],
      past_due: ['Past due', 'red'],
      canceled: ['Cancelled', 'gray'],
      unpaid: ['Unpaid', 'red'],
    } as const;
    const { page, problems, user } = await signedIn({ plan: 'pro' });
    for (const [status, [label, color]] of Object.entries(expected)) {
      await auth.server.db
        .updateTable('users')
        .set({ subscription_status: status as keyof typeof expected })
        .where('id', '=', user.id)
        .execute();
      await page.goto('/app/account');
      const badge = page.getByTestId('subscription-status');
      await badge.waitFor();
      expect(await badge.innerText()).toBe(label);
      expect(await badge.getAttribute('data-color')).toBe(color);
      expect(await page.getByText('Your last payment did not go through.').count()).toBe(
        status === 'past_due' ? 1 : 0,
      );
    }
    expect(await page.getByTestId('account-plan').innerText()).toBe('Pro plan');
    expect(await page.getByTestId('account-email').innerText()).toBe(user.email);
    // A verified user gets no warning.
    expect(await page.getByTestId('unverified-warning').count()).toBe(0);
    expect(problems.all()).toEqual([]);
  });

  it('an unverified user is told to check the inbox and can get a new link', async () => {
    const { page, user } = await signedIn({ verified: false }, [/resend-verification 500/, /status of 500/]);
    await page.goto('/app/account');
    const warning = page.getByTestId('unverified-warning');
    expect(await warning.innerText()).toContain('Check your inbox');
    expect(await warning.innerText()).toContain('verification link');
    await warning.getByRole('button', { name: 'Resend verification email' }).click();
    await expectToast(page, 'Verification email sent', 'Check your inbox for a new verification link');
    await waitForMail(auth.server, user.email, /^Verify your email/);
    await page.route('**/api/auth/resend-verification', fail500);
    await warning.getByRole('button', { name: 'Resend verification email' }).click();
    await expectToast(page, 'Failed to send verification email', 'Boom on the server');
  });

  it('change email and change password check their fields before asking the server', async () => {
    const { page, user } = await signedIn();
    await page.goto('/app/account');
    const email = page.getByRole('region', { name: 'Change email' });
    await email.getByRole('button', { name: 'Change Email' }).click();
    expect(await email.getByRole('alert').innerText()).toBe('Please enter a new email address');
    await email.getByLabel('New email').fill(user.email.toUpperCase());
    await email.getByRole('button', { name: 'Change Email' }).click();
    expect(await email.getByRole('alert').innerText()).toBe('This is already your email address');
    // This user has no password (made without one): the card says how to get one.
    const password = page.getByRole('region', { name: 'Change password' });
    expect(await password.innerText()).toContain('has no password yet');
    expect(await password.getByRole('link', { name: 'Forgot password' }).getAttribute('href')).toBe(
      '/forgot-password',
    );
  });

  it('login alerts: the switch moves at once and moves back when saving fails', async () => {
    const { page } = await signedIn({}, [/user\/settings 500/, /status of 500/]);
    await page.goto('/app/account');
    const toggle = page.getByRole('switch', { name: 'Login alerts' });
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const failing = await intercept(page, '**/api/user/settings', async (route) => {
      if (route.request().method() !== 'PATCH') return route.continue();
      await held;
      return fail500(route);
    });
    await toggle.click();
    // Optimistic: on before the server has answered (the answer is held, so this cannot pass late).
    await expect.poll(() => toggle.getAttribute('aria-checked')).toBe('true');
    release();
    await expectToast(page, 'Failed to update settings', 'Boom on the server');
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    failing.off();
    await toggle.click();
    await expectToast(page, 'Settings Updated', 'Login alerts enabled');
    await toggle.click();
    await expectToast(page, 'Settings Updated', 'Login alerts disabled');
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
  });

  it('login alerts and review notifications keep the keyboard focus while saving', async () => {
    const { page, problems } = await signedIn();
    await page.goto('/app/account');
    for (const [name, id, url, method, what] of [
      ['Login alerts', 'login-alerts-switch', '**/api/user/settings', 'PATCH', 'Login alerts'],
      [
        'Email me each review decision',
        'review-notifications-switch',
        '**/api/user/review-notifications',
        'PUT',
        'Review notifications',
      ],
    ] as const) {
      const toggle = page.getByRole('switch', { name });
      await toggle.waitFor();
      const was = await toggle.getAttribute('aria-checked');
      const now = was === 'true' ? 'false' : 'true';
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let saves = 0;
      const holding = await intercept(page, url, async (route) => {
        if (route.request().method() !== method) return route.continue();
        saves++;
        await held;
        return route.continue();
      });
      const focused = () => page.evaluate(() => document.activeElement?.id ?? '');
      // Where the switch stands in the window: a Space that scrolled would move it by a screen,
      // while a section above it that finishes loading moves the page, not the switch (scroll
      // anchoring), as window.scrollY alone did once under load.
      const scrolled = () => toggle.evaluate((el) => Math.round(el.getBoundingClientRect().top));
      await toggle.focus();
      const top = await scrolled();

      await page.keyboard.press('Space');
      // Saving (the answer is held): the switch has moved, says it is busy, and keeps the focus.
      await expect.poll(() => toggle.getAttribute('aria-busy'), { message: name }).toBe('true');
      expect(await toggle.getAttribute('aria-checked')).toBe(now);
      expect(await focused(), name).toBe(id);
      expect(await toggle.getAttribute('aria-disabled')).toBe('true');
      // Another Space while it saves changes nothing and scrolls nothing.
      await page.keyboard.press('Space');
      expect(await scrolled(), name).toBe(top);
      release();
      await expectToast(page, 'Settings Updated', `${what} ${now === 'true' ? 'enabled' : 'disabled'}`);
      await expect.poll(() => toggle.getAttribute('aria-busy')).toBeNull();
      expect(saves).toBe(1);
      expect(await toggle.getAttribute('aria-checked')).toBe(now);
      expect(await focused(), name).toBe(id);

      // The next Space turns it back, from the same place on the page.
      holding.off();
      await page.keyboard.press('Space');
      await expectToast(page, 'Settings Updated', `${what} ${was === 'true' ? 'enabled' : 'disabled'}`);
      await expect.poll(() => toggle.getAttribute('aria-checked')).toBe(was);
      expect(await focused(), name).toBe(id);
      expect(await scrolled(), name).toBe(top);
    }
    expect(problems.all()).toEqual([]);
  });

  it('a failed load says Failed to load account settings and toasts Failed to load settings', async () => {
    const { page } = await signedIn({}, [/user\/settings 500/, /status of 500/]);
    const failing = await intercept(page, '**/api/user/settings', fail500);
    await page.goto('/app/account');
    await page.getByText('Failed to load account settings', { exact: true }).waitFor({ timeout: 20_000 });
    await expectToast(page, 'Failed to load settings', 'Boom on the server');
    failing.off();
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('account-email').waitFor();
  });
});
