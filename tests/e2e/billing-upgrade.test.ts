import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.ts';
import { shot } from '../support/screenshots.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * Plans and billing in the browser, with the app pointed at the local fake Stripe:
 * upgrade through Checkout, the payment return flow, the billing portal, status badges.
 */

const browser = setupBrowser();
let server: TestServer;
let stripe: FakeStripe;

beforeAll(async () => {
  stripe = await startFakeStripe();
  server = await startTestServer({ env: stripe.env });
  stripe.setWebhookTarget(`${server.baseUrl}/api/billing/webhook`);
});
afterAll(async () => {
  await server?.close();
  await stripe?.stop();
});

/** GET /api/email from the page, with its token: 200 for Pro, 403 plan_required for Free. */
async function historyApiStatus(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const res = await fetch('/api/email', {
      headers: { Authorization: `Bearer ${localStorage.getItem('auth_token')}` },
    });
    return res.status;
  });
}

/** Gives the user a Stripe customer and a subscription (through the app's own calls). */
async function subscribed(
  u: TestUser,
  status: 'active' | 'trialing' | 'past_due' | 'canceled' | 'unpaid' = 'active',
) {
  const res = await server.app.inject({
    method: 'POST',
    url: '/api/billing/create-checkout',
    headers: u.headers,
    payload: { price: 'pro_monthly' },
  });
  expect(res.statusCode, res.body).toBe(200);
  const row = await server.db
    .selectFrom('users')
    .select('stripe_customer_id')
    .where('id', '=', u.user.id)
    .executeTakeFirstOrThrow();
  const sub = stripe.createSubscription(row.stripe_customer_id!, { status });
  const synced = await server.app.inject({ method: 'POST', url: '/api/billing/sync', headers: u.headers });
  expect(synced.statusCode, synced.body).toBe(200);
  return { customer: row.stripe_customer_id!, sub };
}

describe('billing in the browser', () => {
  it('a free user upgrades: Upgrade → checkout → back to the account page → Upgrade Successful! → history unlocked', async () => {
    const u = await createUser(server.db, { email: 'upgrader@example.com' });
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page, {
      ignore: [/\/api\/email .*403/, /403 \(Forbidden\) \(http:[^)]*\/api\/email\)/],
    });
    await page.goto('/app/account');
    const plan = page.locator('[data-section="plan"]');
    await plan.getByTestId('account-plan').filter({ hasText: 'Free plan' }).waitFor();
    expect(await historyApiStatus(page)).toBe(403);

    await plan.getByRole('button', { name: 'Upgrade to Pro' }).click();
    await page.waitForURL(`${stripe.url}/pay/**`);
    expect(await page.getByTestId('checkout-email').textContent()).toBe('upgrader@example.com');
    await page.getByRole('button', { name: 'Pay' }).click();

    await page.waitForURL(/\/app\/account/);
    const banner = page.locator('[data-testid="payment-return"][data-state="success"]');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('Upgrade Successful!');
    // The flow is done: the query parameter is gone, the card shows Pro with a green Active badge.
    await page.waitForURL((url) => !url.search.includes('payment='));
    await plan.getByTestId('account-plan').filter({ hasText: 'Pro plan' }).waitFor();
    const badge = plan.getByTestId('subscription-status');
    expect(await badge.textContent()).toBe('Active');
    expect(await badge.getAttribute('data-color')).toBe('green');
    expect(await plan.getByRole('button', { name: 'Manage Billing' }).isVisible()).toBe(true);
    expect(await plan.getByRole('button', { name: 'Upgrade to Pro' }).count()).toBe(0);
    expect(await plan.getByTestId('subscription-details').textContent()).toMatch(/^Renews on /);

    // History is unlocked: the API answers and the page shows no upgrade overlay.
    expect(await historyApiStatus(page)).toBe(200);
    await page.getByRole('link', { name: 'Open your history' }).click();
    await page.waitForURL(/\/app\/history$/);
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.getByText('Upgrade to View History').count()).toBe(0);
    expect(problems.all()).toEqual([]);
  });

  it('Manage Billing reaches the billing portal of the user’s own customer, from the account and the plan page', async () => {
    const u = await createUser(server.db, { email: 'manager@example.com' });
    const { customer } = await subscribed(u);
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page);
    await page.goto('/app/account');
    const plan = page.locator('[data-section="plan"]');
    await plan.getByTestId('account-plan').filter({ hasText: 'Pro plan' }).waitFor();
    await plan.getByRole('button', { name: 'Manage Billing' }).click();
    await page.waitForURL(`${stripe.url}/portal/**`);
    expect(await page.getByTestId('portal-customer').textContent()).toBe(customer);
    expect(await page.getByTestId('portal-email').textContent()).toBe('manager@example.com');

    await page.getByRole('link', { name: 'Return to Proofmail' }).click();
    await page.waitForURL(`${server.baseUrl}/app/account`);
    await plan.getByTestId('account-plan').filter({ hasText: 'Pro plan' }).waitFor();

    // /plan: a Pro user's button reads Manage Billing and opens the portal too.
    await page.goto('/plan');
    const pro = page.locator('[data-plan="pro"]');
    await pro.getByRole('button', { name: 'Manage Billing' }).click();
    await page.waitForURL(`${stripe.url}/portal/**`);
    expect(await page.getByTestId('portal-customer').textContent()).toBe(customer);
    expect(problems.all()).toEqual([]);
  });

  it('the plan page: Current Plan (disabled) for free users; Upgrade to Pro starts Checkout', async () => {
    const u = await createUser(server.db);
    const page = await browser.sharedPage(server, u);
    await page.goto('/plan');
    const current = page.locator('[data-plan="free"]').getByRole('button', { name: 'Current Plan' });
    await current.waitFor();
    expect(await current.isDisabled()).toBe(true);
    await page.locator('[data-plan="pro"]').getByRole('button', { name: 'Upgrade to Pro' }).click();
    await page.waitForURL(`${stripe.url}/pay/**`);
    // Cancelling on Stripe's page comes back to /plan, still free.
    await page.getByRole('link', { name: 'Cancel' }).click();
    await page.waitForURL(`${server.baseUrl}/plan`);
    await page.locator('[data-plan="free"]').getByRole('button', { name: 'Current Plan' }).waitFor();
  });

  it('a failing checkout shows the spec’s toast with the server’s message', async () => {
    const u = await createUser(server.db);
    const page = await browser.sharedPage(server, u);
    await page.goto('/app/account');
    const plan = page.locator('[data-section="plan"]');
    await plan.getByTestId('account-plan').filter({ hasText: 'Free plan' }).waitFor();
    stripe.failCalls('/v1/checkout/sessions', 10);
    try {
      await plan.getByRole('button', { name: 'Upgrade to Pro' }).click();
      const toast = page.getByRole('alert').filter({ hasText: 'Failed to create checkout session' });
      await toast.waitFor();
      expect(await toast.textContent()).toContain('The payment provider could not be reached');
    } finally {
      stripe.failCalls('/v1/checkout/sessions', 0);
    }
    expect(page.url()).toBe(`${server.baseUrl}/app/account`);
    // The button is usable again.
    expect(await plan.getByRole('button', { name: 'Upgrade to Pro' }).isEnabled()).toBe(true);
  });

  it('shows the status badge colours and the past-due warning', async () => {
    const u = await createUser(server.db);
    const { sub } = await subscribed(u, 'active');
    const page = await browser.sharedPage(server, u);
    const plan = page.locator('[data-section="plan"]');
    const expected = [
      ['active', 'Active', 'green'],
      ['trialing', 'Trialing', 'blue'],
      ['past_due', 'Past due', 'red'],
      ['canceled', 'Cancelled', 'gray'],
      ['unpaid', 'Unpaid', 'red'],
    ] as const;
    for (const [status, label, color] of expected) {
      stripe.updateSubscription(sub.id, { status });
      const synced = await server.app.inject({
        method: 'POST',
        url: '/api/billing/sync',
        headers: u.headers,
      });
      expect(synced.json().user.subscriptionStatus).toBe(status);
      await page.goto('/app/account');
      const badge = plan.getByTestId('subscription-status');
      await badge.filter({ hasText: label }).waitFor();
      expect(await badge.getAttribute('data-color'), status).toBe(color);
      const warning = plan.getByText('Update your payment method');
      if (status === 'past_due') {
        expect(await warning.isVisible()).toBe(true);
        expect(await plan.getByTestId('account-plan').textContent()).toBe('Pro plan');
      } else {
        expect(await warning.count()).toBe(0);
      }
    }
  });

  it('a cancelled subscription whose period is over reads Free, Cancelled and ended, before Stripe deletes it', async () => {
    const u = await createUser(server.db);
    const { sub } = await subscribed(u, 'active');
    // Cancelled at the period end, and that end is two days past; Stripe's
    // customer.subscription.deleted has not arrived, so Stripe still reports it active.
    const end = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    stripe.updateSubscription(sub.id, { cancelAtPeriodEnd: true, currentPeriodEnd: end });
    const synced = await server.app.inject({ method: 'POST', url: '/api/billing/sync', headers: u.headers });
    expect(synced.json().user).toMatchObject({ plan: 'free', subscriptionStatus: 'active' });
    const day = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' }).format(end);

    for (const [name, width, colorScheme] of [
      ['1280-light', 1280, 'light'],
      ['1280-dark', 1280, 'dark'],
      ['375-light', 375, 'light'],
      ['375-dark', 375, 'dark'],
    ] as const) {
      const page = await browser.sharedPage(server, u, { viewport: { width, height: 900 }, colorScheme });
      const problems = watchProblems(page);
      await page.goto('/app/account');
      const plan = page.locator('[data-section="plan"]');
      await plan.getByTestId('account-plan').filter({ hasText: 'Free plan' }).waitFor();
      const details = plan.getByTestId('subscription-details');
      await details.waitFor();
      expect(await details.textContent()).toBe(
        `Your Pro subscription ended on ${day}. You are not charged again.`,
      );
      const badge = plan.getByTestId('subscription-status');
      expect(await badge.textContent()).toBe('Cancelled');
      expect(await badge.getAttribute('data-color')).toBe('gray');
      expect(await plan.getByText(/Renews on/).count()).toBe(0);
      expect(await plan.getByRole('button', { name: 'Upgrade to Pro' }).isVisible()).toBe(true);
      expect(await plan.getByRole('button', { name: 'Manage Billing' }).isVisible()).toBe(true);
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
      ).toBeLessThanOrEqual(0);
      await shot(plan, `account-plan-ended-${name}`);
      expect(problems.all()).toEqual([]);
    }
  });

  it('shows Processing Payment when the subscription never activates', async () => {
    stripe.setCheckoutOutcome('incomplete');
    try {
      const u = await createUser(server.db);
      const page = await browser.sharedPage(server, u);
      await page.goto('/plan');
      await page.locator('[data-plan="pro"]').getByRole('button', { name: 'Upgrade to Pro' }).click();
      await page.waitForURL(`${stripe.url}/pay/**`);
      const syncsBefore = stripe.callsTo('/v1/subscriptions', 'GET').length;
      await page.getByRole('button', { name: 'Pay' }).click();
      await page.waitForURL(/\/app\/account\?payment=success$/);
      const started = Date.now();
      await page.locator('[data-testid="payment-return"][data-state="checking"]').waitFor();
      const processing = page.locator('[data-testid="payment-return"][data-state="processing"]');
      await processing.waitFor({ timeout: 25_000 });
      const seconds = (Date.now() - started) / 1000;
      expect(await processing.textContent()).toContain('Processing Payment');
      expect(await processing.textContent()).toContain('refresh this page');
      // 10 attempts, 1 second apart: at least 9 s of waiting.
      expect(seconds).toBeGreaterThan(8.5);
      // Each attempt synced (the app read Stripe); the webhooks of the incomplete payment add none.
      expect(stripe.callsTo('/v1/subscriptions', 'GET').length - syncsBefore).toBeGreaterThanOrEqual(10);
      await page
        .locator('[data-section="plan"]')
        .getByTestId('account-plan')
        .filter({ hasText: 'Free plan' })
        .waitFor();
      expect(await historyApiStatus(page)).toBe(403);
    } finally {
      stripe.setCheckoutOutcome('active');
    }
  });
});
