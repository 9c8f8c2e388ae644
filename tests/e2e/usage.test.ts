import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthOf } from '../../src/server/features/email/usage.repo.ts';
import { setupBrowser } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { createUser } from '../support/users.ts';

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { FREE_MONTHLY_LIMIT: '5' } });
});
afterAll(async () => server?.close());

describe('usage bar on /app/profile and /app/account', () => {
  it.each([
    [0, 'green', '5 emails remaining this month'],
    [4, 'yellow', 'Only 1 email(s) remaining this month'],
    [5, 'red', "You've reached your monthly limit"],
  ])('with %i of 5 used it is %s and says "%s"', async (used, color, message) => {
    const u = await createUser(server.db);
    if (used > 0) {
      await server.db
        .insertInto('usage_counters')
        .values({ user_id: u.user.id, month: monthOf(new Date()), count: used })
        .execute();
    }
    const page = await browser.signedInPage(server, u);
    for (const path of ['/app/profile', '/app/account']) {
      await page.goto(path);
      const meter = page.getByTestId('usage-meter');
      await meter.getByText(message, { exact: true }).waitFor();
      expect(await meter.getByRole('progressbar').getAttribute('data-color')).toBe(color);
      expect(await meter.getByRole('progressbar').getAttribute('aria-valuenow')).toBe(String(used));
      await meter.getByText(`${used} / 5`).waitFor();
    }
  });

  it('shows Pro users their sends without a limit', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await browser.signedInPage(server, u);
    await page.goto('/app/profile');
    await page.getByTestId('usage-meter').getByText('unlimited (fair use)', { exact: false }).waitFor();
    expect(await page.getByTestId('usage-meter').getByRole('progressbar').count()).toBe(0);
  });
});
