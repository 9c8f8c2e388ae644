import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { startFakeStripe, type FakeStripe } from '../support/fake-stripe.ts';
import { createUser } from '../support/users.ts';

/**
 * The /plan page's Pro card with billing on, against the local fake Stripe: it shows what the
 * account page shows, and follows a plan the server learnt of while the page was open.
 */

const GRANTED = 'Your Pro plan was granted by an administrator of this server; there is nothing to bill.';

const browser = setupBrowser();
let server: TestServer;
let stripe: FakeStripe;

beforeAll(async () => {
  stripe = await startFakeStripe();
  server = await startTestServer({ env: stripe.env });
});
afterAll(async () => {
  await server?.close();
  await stripe?.stop();
});

describe('the plan page with billing on', () => {
  it('a checkout paid in another tab (its webhook not in yet): Upgrade to Pro answers already Pro, and the page then shows Pro with Manage Billing', async () => {
    const u = await createUser(server.db);
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page, { ignore: [/create-checkout.*409/, /409 \(Conflict\)/] });
    await page.goto('/plan');
    const pro = page.locator('[data-plan="pro"]');
    await pro.getByRole('button', { name: 'Upgrade to Pro' }).waitFor();

    // Meanwhile, in another tab: a checkout, paid; no webhook has come and nothing synced.
    const started = await server.app.inject({
      method: 'POST',
      url: '/api/billing/create-checkout',
      headers: u.headers,
      payload: { price: 'pro_monthly' },
    });
    expect(started.statusCode, started.body).toBe(200);
    await fetch(`${stripe.url}/pay/${(started.json() as { url: string }).url.split('/').pop()}`, {
      method: 'POST',
      redirect: 'manual',
    });

    await pro.getByRole('button', { name: 'Upgrade to Pro' }).click();
    await page.getByRole('alert').filter({ hasText: 'You already have the Pro plan' }).waitFor();
    await pro.getByRole('button', { name: 'Manage Billing' }).waitFor();
    expect(await pro.getByText('Your plan').isVisible()).toBe(true);
    expect(
      await page.locator('[data-plan="free"]').getByRole('button', { name: 'Current Plan' }).count(),
    ).toBe(0);
    expect(page.url()).toBe(`${server.baseUrl}/plan`);
    expect(problems.all()).toEqual([]);
  });

  it('Pro granted by an administrator: no Manage Billing, and says so, as the account page does', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page);

    await page.goto('/app/account');
    const plan = page.locator('[data-section="plan"]');
    await plan.getByTestId('account-plan').filter({ hasText: 'Pro plan' }).waitFor();
    await plan.getByTestId('subscription-details').filter({ hasText: GRANTED }).waitFor();
    expect(await plan.getByRole('button', { name: 'Manage Billing' }).count()).toBe(0);

    await page.goto('/plan');
    const pro = page.locator('[data-plan="pro"]');
    await pro.getByTestId('pro-note').filter({ hasText: GRANTED }).waitFor();
    expect(await pro.getByText('Your plan').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Manage Billing' }).count()).toBe(0);
    expect(problems.all()).toEqual([]);
  });
});
