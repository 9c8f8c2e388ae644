import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenDuringTest, setupBrowser, watchProblems } from '../support/browser.ts';
import { runAdmin } from '../support/child-process.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { createUser } from '../support/users.ts';

/**
 * A server without Stripe (docs/decisions/0057-billing-off-says-so.md): upgrade, billing and the
 * payment return say plainly that billing is not enabled here, with no operator instructions and
 * no billing calls; the admin command is how a plan changes, and the UI then shows Pro features.
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

/** What an end user reads: no commands, no settings, nothing only the operator can act on. */
async function expectNoOperatorHints(dialog: Locator): Promise<void> {
  const text = await dialog.innerText();
  expect(text).toContain('nothing has been charged');
  expect(text).not.toMatch(/npm run|admin --|STRIPE_|set-plan|command line/i);
}

async function historyApiStatus(page: Page): Promise<number> {
  return page.evaluate(async () => {
    const res = await fetch('/api/email', {
      headers: { Authorization: `Bearer ${localStorage.getItem('auth_token')}` },
    });
    return res.status;
  });
}

describe('billing off', () => {
  it('upgrade explains that billing is not enabled; the admin command grants Pro and the UI shows it', async () => {
    const u = await createUser(server.db, { email: 'selfhost@example.com' });
    const page = await browser.sharedPage(server, u);
    const problems = watchProblems(page, {
      ignore: [/\/api\/email .*403/, /403 \(Forbidden\) \(http:[^)]*\/api\/email\)/],
    });
    await page.goto('/app/account');
    const plan = page.locator('[data-section="plan"]');
    await plan.getByTestId('account-plan').filter({ hasText: 'Free plan' }).waitFor();

    await plan.getByRole('button', { name: 'Upgrade to Pro' }).click();
    const dialog = page.getByRole('dialog', { name: 'Billing Is Not Enabled on This Server', exact: true });
    await dialog.waitFor();
    await expectNoOperatorHints(dialog);
    await dialog.getByRole('button', { name: 'Got It' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(page.url()).toBe(`${server.baseUrl}/app/account`);

    // /plan says so too, and its Upgrade button explains instead of failing.
    await page.goto('/plan');
    await page.getByText('Billing is not enabled on this server.').waitFor();
    const notice = await page.locator('#plan-billing-off').innerText();
    expect(notice).toContain('ask whoever runs this server');
    expect(notice).not.toMatch(/npm run|admin --|STRIPE_|set-plan|command line/i);
    // The FAQ sends no one to a Manage Billing this server does not have.
    const switching = page.locator('details').filter({ hasText: 'Can I switch plans?' });
    await switching.locator('summary').click();
    const answer = await switching.innerText();
    expect(answer).toContain('ask whoever runs this server');
    expect(answer).not.toContain('Manage Billing');
    await page.locator('[data-plan="pro"]').getByRole('button', { name: 'Upgrade to Pro' }).click();
    await page.getByRole('dialog', { name: 'Billing Is Not Enabled on This Server', exact: true }).waitFor();
    expect(await historyApiStatus(page)).toBe(403);

    const granted = await runAdmin(['set-plan', u.user.email, 'pro'], { DATABASE_URL: server.databaseUrl });
    expect(granted.code, granted.stderr).toBe(0);

    await page.goto('/app/account');
    await plan.getByTestId('account-plan').filter({ hasText: 'Pro plan' }).waitFor();
    expect(await plan.getByTestId('subscription-details').textContent()).toContain(
      'granted by an administrator',
    );
    // Manage Billing on a server without billing explains, too, to an end user.
    await plan.getByRole('button', { name: 'Manage Billing' }).click();
    const manage = page.getByRole('dialog', { name: 'Billing Is Not Enabled on This Server', exact: true });
    await manage.waitFor();
    await expectNoOperatorHints(manage);
    await manage.getByRole('button', { name: 'Got It' }).click();

    expect(await historyApiStatus(page)).toBe(200);
    await page.goto('/app/history');
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.getByText('Upgrade to View History').count()).toBe(0);
    expect(problems.all()).toEqual([]);
  });

  it('the payment return says billing is not enabled, to Free and Pro users alike, and syncs nothing', async () => {
    for (const plan of ['free', 'pro'] as const) {
      const u = await createUser(server.db, { plan });
      const page = await browser.sharedPage(server, u);
      const problems = watchProblems(page);
      const billingCalls: string[] = [];
      listenDuringTest(page, 'request', (req) => {
        if (req.url().includes('/api/billing/sync')) billingCalls.push(req.url());
      });
      await page.goto('/app/account?payment=success');
      const banner = page.getByTestId('payment-return');
      await banner.waitFor();
      expect(await banner.getAttribute('data-state'), plan).toBe('billing-off');
      expect((await banner.innerText()).replace(/\s+/g, ' ').trim(), plan).toBe(
        'Billing is not enabled on this server No payment was taken, and your plan has not changed.',
      );
      await page.getByTestId('account-plan').waitFor();
      await page.waitForLoadState('networkidle');
      expect(billingCalls, plan).toEqual([]);
      expect(
        await page.getByText(/Upgrade Successful|Processing Payment|Confirming your payment/).count(),
        plan,
      ).toBe(0);
      expect(problems.all(), plan).toEqual([]);
    }
  });
});
