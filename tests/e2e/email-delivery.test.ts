import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { enqueueMail } from '../../src/server/mail/outbox.ts';
import type { OutboxState } from '../../src/server/db/schema.ts';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * The detail page's delivery section and the history's delivery icon, per recipient: what each
 * recipient's server said, which message may have arrived twice, and a time that reads "Sent"
 * only when something was sent.
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const PHONE = { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true };
const SANDBOX_NOISE = /Blocked script execution in 'about:srcdoc'/;

async function openAs(u: TestUser, path: string, options: Parameters<typeof browser.newPage>[0] = {}) {
  const page = await browser.pageWith(server, u, options);
  await page.goto(path);
  return page;
}

interface Outcome {
  state: OutboxState;
  attempts?: number;
  code?: number;
  error?: string;
  uncertain?: boolean;
}

/** An email whose recipients' deliveries ended as given (in the order of `to`). */
async function emailWith(u: TestUser, subject: string, outcomes: Record<string, Outcome>) {
  const to = Object.keys(outcomes);
  const email = await insertEmail(server.db, {
    userId: u.user.id,
    to: to.join(', '),
    subject,
    html: `<p>${subject}</p>`,
    inlineCss: false,
    createdAt: new Date('2026-11-20T10:00:00Z'),
  });
  const queued = await enqueueMail(server.db, { priority: 'pro', to, emailId: email.id });
  for (const q of queued) {
    const o = outcomes[q.to]!;
    await server.db
      .updateTable('mail_outbox')
      .set({
        state: o.state,
        attempts: o.attempts ?? 1,
        last_error_code: o.code ?? null,
        last_error: o.error ?? null,
        uncertain: o.uncertain ?? false,
        sent_at: o.state === 'sent' ? new Date('2026-11-20T10:00:05Z') : null,
      })
      .where('id', '=', q.id)
      .execute();
  }
  return email;
}

const lines = (page: Page) => page.getByTestId('recipient-delivery');

describe('delivery per recipient', () => {
  it('shows each recipient: sent, refused with the server reply, unconfirmed, and which may have arrived twice', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const email = await emailWith(u, 'Mixed outcomes', {
      'ok@example.com': { state: 'sent' },
      'twice@example.com': { state: 'sent', attempts: 2, uncertain: true },
      'nobody@example.com': { state: 'failed', code: 550, error: '550 5.1.1 User unknown' },
      'silent@example.com': {
        state: 'unconfirmed',
        attempts: 2,
        uncertain: true,
        error:
          'The mail server did not confirm the message within 10 minutes after the whole message was sent; the server may have accepted it',
      },
    });
    const page = await openAs(u, `/app/email/${email.id}`);
    const problems = watchProblems(page, { ignore: [SANDBOX_NOISE] });
    await page.getByTestId('delivery-summary').waitFor();
    expect(await page.getByTestId('delivery-state').innerText()).toBe('Partly sent');
    expect(await page.getByTestId('delivery-summary').innerText()).toBe(
      'Sent to 2 of 4 recipients; 1 refused, 1 unconfirmed',
    );
    expect(await page.getByRole('alert').innerText()).toBe(
      'Sent to 2 of 4 recipients; 1 refused, 1 unconfirmed',
    );
    expect(await page.getByTestId('email-time-label').innerText()).toBe('Sent');

    expect(await lines(page).count()).toBe(4);
    const line = (address: string) => lines(page).filter({ hasText: address });
    expect(await line('ok@example.com').getAttribute('data-state')).toBe('sent');
    expect(await line('ok@example.com').getByTestId('recipient-delivery-state').innerText()).toBe('Sent');
    expect(await line('ok@example.com').getByTestId('recipient-uncertain').count()).toBe(0);
    expect(await line('twice@example.com').getByTestId('recipient-uncertain').innerText()).toMatch(
      /^May have arrived twice: an attempt lost its answer/,
    );
    expect(await line('nobody@example.com').getByTestId('recipient-delivery-state').innerText()).toBe(
      'Failed',
    );
    expect(await line('nobody@example.com').getByTestId('recipient-error').innerText()).toBe(
      '550 5.1.1 User unknown',
    );
    expect(await line('silent@example.com').getByTestId('recipient-delivery-state').innerText()).toBe(
      'Unconfirmed',
    );
    expect(await line('silent@example.com').getByTestId('recipient-error').innerText()).toMatch(
      /did not confirm the message within 10 minutes/,
    );
    expect(await line('silent@example.com').getByTestId('recipient-uncertain').innerText()).toMatch(
      /^May have arrived, possibly twice: .* not sent a third time\.$/,
    );

    // The history's icon says the same, in its accessible name.
    await page.goto('/app/history');
    const row = page.getByTestId('email-row').filter({ hasText: 'Mixed outcomes' });
    await row.waitFor();
    expect(await row.getByRole('img').getAttribute('aria-label')).toBe(
      'Delivery: Partly sent — nobody@example.com: 550 5.1.1 User unknown (may have arrived twice)',
    );
    expect(problems.all()).toEqual([]);
  });

  it('an email not delivered to anyone shows when it was submitted, never "Sent"', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const email = await emailWith(u, 'Bounced', {
      'a@example.com': { state: 'failed', code: 550, error: '5.7.1 Relaying denied' },
      'b@example.com': { state: 'failed', code: 550, error: '5.7.1 Relaying denied' },
    });
    const page = await openAs(u, `/app/email/${email.id}`);
    await page.getByTestId('delivery-summary').waitFor();
    expect(await page.getByTestId('delivery-state').innerText()).toBe('Failed');
    expect(await page.getByTestId('delivery-summary').innerText()).toBe(
      'Not delivered to any of the 2 recipients',
    );
    expect(await page.getByTestId('email-time-label').innerText()).toBe('Submitted');
    expect(await page.getByTestId('email-sent-at').getAttribute('datetime')).toBe('2026-11-20T10:00:00.000Z');
    expect(await page.getByTestId('recipient-error').allInnerTexts()).toEqual([
      '550 5.7.1 Relaying denied',
      '550 5.7.1 Relaying denied',
    ]);
  });

  it('fits a phone in both themes: no sideways scroll, long addresses wrap', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const email = await emailWith(u, 'On a phone', {
      'a-very-long-address-for-a-phone-screen@subdomain.example-client.com': { state: 'sent' },
      'nobody@example.com': {
        state: 'failed',
        code: 550,
        error:
          '550 5.1.1 <nobody@example.com>: Recipient address rejected: User unknown in virtual mailbox table',
      },
    });
    for (const colorScheme of ['light', 'dark'] as const) {
      const page = await openAs(u, `/app/email/${email.id}`, { ...PHONE, colorScheme });
      await page.getByTestId('delivery-summary').waitFor();
      const width = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(width, colorScheme).toBeLessThanOrEqual(375);
      const box = await lines(page).first().boundingBox();
      expect(box!.x + box!.width, colorScheme).toBeLessThanOrEqual(375);
    }
  });
});
