import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { runAdmin } from '../support/child-process.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { createUser } from '../support/users.ts';

/**
 * A server without Stripe (docs/decisions/0017-billing-off.md): upgrade and billing actions explain that
 * billing is off, and the admin command is how a plan changes; the UI then shows Pro features.
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

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
    const page = await browser.signedInPage(server, u);
    const problems = watchProblems(page, {
      ignore: [/\/api\/email .*403/, /403 \(Forbidden\) \(http:[^)]*\/api\/email\)/],
    });
    await page.goto('/app/account');
    const plan = page.locator('[data-section="plan"]');
    await plan.getByTestId('account-plan').filter({ hasText: 'Free plan' }).waitFor();

    await plan.getByRole('button', { name: 'Upgrade to Pro' }).click();
    const dialog = page.getByRole('dialog', { name: 'Billing is not enabled on this server' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('npm run admin -- set-plan selfhost@example.com pro');
    await dialog.getByRole('button', { name: 'Got it' }).click();
    await dialog.waitFor({ state: 'detached' });
    expect(page.url()).toBe(`${server.baseUrl}/app/account`);

    // /plan says so too, and its Upgrade button explains instead of failing.
    await page.goto('/plan');
    await page.getByText('Billing is not enabled on this server.').waitFor();
    await page.locator('[data-plan="pro"]').getByRole('button', { name: 'Upgrade to Pro' }).click();
    await page.getByRole('dialog', { name: 'Billing is not enabled on this server' }).waitFor();
    expect(await historyApiStatus(page)).toBe(403);

    const granted = await runAdmin(['set-plan', u.user.email, 'pro'], { DATABASE_URL: server.databaseUrl });
    expect(granted.code, granted.stderr).toBe(0);

    await page.goto('/app/account');
    await plan.getByTestId('account-plan').filter({ hasText: 'Pro plan' }).waitFor();
    expect(await plan.getByTestId('subscription-details').textContent()).toContain(
      'granted by an administrator',
    );
    // Manage Billing on a server without billing explains, too.
    await plan.getByRole('button', { name: 'Manage Billing' }).click();
    await page.getByRole('dialog', { name: 'Billing is not enabled on this server' }).waitFor();

    expect(await historyApiStatus(page)).toBe(200);
    await page.goto('/app/history');
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.getByText('Upgrade to View History').count()).toBe(0);
    expect(problems.all()).toEqual([]);
  });
});
