import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monthOf } from '../../src/server/features/email/usage.repo.ts';
import { DEFAULT_CONTEXT, setupBrowser } from '../support/browser.ts';
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
    const page = await browser.sharedPage(server, u);
    for (const path of ['/app/profile', '/app/account']) {
      await page.goto(path);
      const meter = page.getByTestId('usage-meter');
      await meter.getByText(message, { exact: true }).waitFor();
      expect(await meter.getByRole('progressbar').getAttribute('data-color')).toBe(color);
      expect(await meter.getByRole('progressbar').getAttribute('aria-valuenow')).toBe(String(used));
      await meter.getByText(`${used} / 5`).waitFor();
    }
  });

  it("says when the free allowance starts over, in the reader's time zone, on send, profile and account", async () => {
    const u = await createUser(server.db);
    const now = new Date();
    const resetsAt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    const day = (timeZone: string) =>
      new Intl.DateTimeFormat('en-US', { timeZone, month: 'long', day: 'numeric' }).format(resetsAt);
    // UTC: the reset is at midnight, so the day alone. Los Angeles: the evening before, with its time.
    for (const [timeZone, expected] of [
      ['UTC', day('UTC')],
      [
        'America/Los_Angeles',
        `${day('America/Los_Angeles')} at ${new Intl.DateTimeFormat('en-US', { timeZone: 'America/Los_Angeles', hour: 'numeric', minute: '2-digit' }).format(resetsAt)}`,
      ],
    ] as const) {
      // The file's pages read UTC in en-US (DEFAULT_CONTEXT, tests/support/browser.ts): the shared
      // page is the UTC reader; another time zone is a context option, so pageWith gives it a
      // context of its own.
      const page = await browser.pageWith(
        server,
        u,
        timeZone === DEFAULT_CONTEXT.timezoneId ? {} : { timezoneId: timeZone },
      );
      await page.goto('/app/send');
      const reader = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions());
      expect({ timeZone: reader.timeZone, locale: reader.locale }).toEqual({ timeZone, locale: 'en-US' });
      await page.getByTestId('usage-banner').getByText('5 of 5 sends remaining this month').waitFor();
      expect(await page.getByTestId('usage-banner').getByTestId('usage-resets').innerText()).toBe(
        `Resets on ${expected}`,
      );
      for (const path of ['/app/profile', '/app/account']) {
        await page.goto(path);
        expect(await page.getByTestId('usage-meter').getByTestId('usage-resets').innerText(), path).toBe(
          `Your monthly allowance resets on ${expected}.`,
        );
      }
    }
  });

  it('shows Pro users their sends without a limit', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await browser.sharedPage(server, u);
    await page.goto('/app/profile');
    await page.getByTestId('usage-meter').getByText('unlimited (fair use)', { exact: false }).waitFor();
    expect(await page.getByTestId('usage-meter').getByRole('progressbar').count()).toBe(0);
  });
});
