import type { Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { enqueueMail } from '../../src/server/mail/outbox.ts';
import { listenDuringTest, setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { shot } from '../support/screenshots.ts';
import { toast } from '../support/toasts.ts';
import { rendersCharged } from '../support/render-limit.ts';
import { createUser, type TestUser } from '../support/users.ts';

/** /app/history beyond the happy path: plans, empty states, failures, delivery states, phones. */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

const PHONE = { viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true };
const SANDBOX_NOISE = /Blocked script execution in 'about:srcdoc'/;

/** `path` for `u`, on the file's shared page or a page of its own where the options need one. */
async function openAs(
  u: TestUser,
  path: string,
  options: Parameters<typeof browser.newPage>[0] = {},
): Promise<Page> {
  const page = await browser.pageWith(server, u, options);
  await page.goto(path);
  return page;
}

async function seed(u: TestUser, subject: string, options: { to?: string; at?: Date } = {}) {
  return insertEmail(server.db, {
    userId: u.user.id,
    to: options.to ?? 'client@example.com',
    subject,
    html: `<p>${subject}</p>`,
    inlineCss: false,
    createdAt: options.at ?? new Date(),
  });
}

const rows = (page: Page) => page.getByTestId('email-row');

describe('plans', () => {
  it('a free user sees the blurred Upgrade to View History overlay and the list API is never called', async () => {
    const u = await createUser(server.db, { plan: 'free' });
    await seed(u, 'Hidden from free users');
    const page = await browser.sharedPage(server, u);
    const listCalls: string[] = [];
    listenDuringTest(page, 'request', (req) => {
      if (/\/api\/email(\?|$)/.test(req.url())) listCalls.push(req.url());
    });
    const problems = watchProblems(page);
    await page.goto('/app/history');
    await page.getByRole('heading', { level: 1, name: 'Emails' }).waitFor();
    const overlay = page.getByTestId('upgrade-overlay');
    await overlay.getByRole('heading', { name: 'Upgrade to View History' }).waitFor();
    const blurred = overlay.locator('[inert]');
    expect(await blurred.evaluate((el) => getComputedStyle(el).filter)).toMatch(/blur/);
    expect(await blurred.getAttribute('aria-hidden')).toBe('true');
    expect(await page.getByText('Hidden from free users').count()).toBe(0); // sample rows only
    expect(await page.getByRole('searchbox', { name: 'Search emails' }).isDisabled()).toBe(true);
    const upgrade = overlay.getByRole('link', { name: 'Upgrade to Pro' });
    expect(await upgrade.getAttribute('href')).toBe('/plan');
    await upgrade.click();
    await page.waitForURL('**/plan');
    expect(listCalls).toEqual([]);
    expect(problems.all()).toEqual([]);
  });

  /** Opens /app/history for a Pro user whose /api/auth/me answer says `plan` instead. */
  async function withPlan(plan: string) {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await browser.sharedPage(server, u);
    await page.route(/\/api\/auth\/me$/, async (route) => {
      const res = await route.fetch();
      const body = (await res.json()) as { user: { plan: string } };
      body.user.plan = plan;
      await route.fulfill({ response: res, json: body });
    });
    const listCalls: string[] = [];
    listenDuringTest(page, 'request', (req) => {
      if (/\/api\/email\?/.test(req.url())) listCalls.push(req.url());
    });
    return { page, listCalls };
  }

  it('compares the plan with "free" case-insensitively', async () => {
    const { page, listCalls } = await withPlan('FREE');
    await page.goto('/app/history');
    await page
      .getByTestId('upgrade-overlay')
      .getByRole('heading', { name: 'Upgrade to View History' })
      .waitFor();
    expect(listCalls).toEqual([]);
  });

  it('shows the overlay, not an error, when the server answers plan_required', async () => {
    const { page, listCalls } = await withPlan('pro');
    await page.route(/\/api\/email\?/, (route) =>
      route.fulfill({
        status: 403,
        json: { error: 'Email history is a Pro feature.', code: 'plan_required' },
      }),
    );
    await page.goto('/app/history');
    await page
      .getByTestId('upgrade-overlay')
      .getByRole('heading', { name: 'Upgrade to View History' })
      .waitFor();
    expect(listCalls.length).toBeGreaterThan(0);
    expect(await toast(page, 'error', 'Failed to load emails').count()).toBe(0);
  });
});

describe('empty states', () => {
  it('says No emails sent yet, with a way to send one', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await openAs(u, '/app/history');
    await page.getByRole('heading', { name: 'No emails sent yet' }).waitFor();
    const send = page.getByRole('main').getByRole('link', { name: 'Send Test Email' });
    expect(await send.getAttribute('href')).toBe('/app/send');
  });

  it('says No emails found matching the query, and Clear search brings the list back', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    await seed(u, 'Welcome series');
    await seed(u, 'Receipt');
    const page = await openAs(u, '/app/history?q=no-such-thing');
    await page.getByRole('heading', { name: 'No emails found matching the query' }).waitFor();
    expect(await page.getByRole('searchbox', { name: 'Search emails' }).inputValue()).toBe('no-such-thing');
    await page.getByRole('button', { name: 'Clear search', exact: true }).click();
    await expect.poll(() => rows(page).count()).toBe(2);
    expect(new URL(page.url()).search).toBe('');
    expect(await page.getByRole('searchbox', { name: 'Search emails' }).inputValue()).toBe('');
    // Back to a search through the address bar's history works too.
    await page.getByRole('searchbox', { name: 'Search emails' }).fill('receipt');
    await page.waitForURL(/q=receipt/);
    await expect.poll(() => rows(page).count()).toBe(1);
  });
});

describe('rows', () => {
  it('show the delivery state with an accessible label, the share status and No Subject', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const failed = await seed(u, 'Bounced one', { to: 'nobody@example.com' });
    await seed(u, '', { at: new Date(Date.now() - 60_000) });
    const [queued] = await enqueueMail(server.db, {
      priority: 'pro',
      to: ['nobody@example.com'],
      emailId: failed.id,
    });
    await server.db
      .updateTable('mail_outbox')
      .set({ state: 'failed', attempts: 1, last_error_code: 550, last_error: '5.1.1 User unknown' })
      .where('id', '=', queued!.id)
      .execute();
    const page = await openAs(u, '/app/history');
    await expect.poll(() => rows(page).count()).toBe(2);
    const bounced = rows(page).filter({ hasText: 'Bounced one' });
    const icon = bounced.getByRole('img');
    expect(await icon.getAttribute('aria-label')).toBe('Delivery: Failed — 550 5.1.1 User unknown');
    expect(await bounced.getByText('Not Shared').isVisible()).toBe(true);
    const noSubject = rows(page).nth(1);
    expect(await noSubject.getByText('No Subject').isVisible()).toBe(true);
    expect(await noSubject.getByRole('img').getAttribute('aria-label')).toBe(
      'Delivery: Queued — Waiting to be sent',
    );
    expect(await page.getByRole('columnheader').allTextContents()).toEqual([
      'Delivery',
      'To',
      'Status',
      'Subject',
      'Sent',
      'Actions',
    ]);

    // The detail page shows the server's reply.
    await bounced.getByRole('button', { name: /^Actions for/ }).click();
    await page.getByRole('menuitem', { name: 'View' }).click();
    await page.waitForURL(`**/app/email/${failed.id}`);
    expect(await page.getByTestId('delivery-state').innerText()).toBe('Failed');
    expect(await page.getByRole('alert').innerText()).toBe('Not delivered');
    const recipient = page.getByTestId('recipient-delivery');
    expect(await recipient.getByTestId('recipient-error').innerText()).toBe('550 5.1.1 User unknown');
    // Its creation time is not called "Sent".
    expect(await page.getByTestId('email-time-label').innerText()).toBe('Submitted');
  });

  it('Cancel keeps the email; a failed delete says Failed to delete email and keeps the row', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    await seed(u, 'Keep me');
    const page = await openAs(u, '/app/history');
    const row = rows(page).filter({ hasText: 'Keep me' });
    await row.getByRole('button', { name: /^Actions for/ }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete email' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'detached' });
    expect(await row.count()).toBe(1);

    await page.route(/\/api\/email\/[0-9a-f-]+$/, (route) =>
      route.request().method() === 'DELETE'
        ? route.fulfill({ status: 500, json: { error: 'Database unavailable' } })
        : route.fallback(),
    );
    await row.getByRole('button', { name: /^Actions for/ }).click();
    await page.getByRole('menuitem', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    const failed = toast(page, 'error', 'Failed to delete email');
    await failed.waitFor();
    expect(await failed.innerText()).toContain('Database unavailable');
    expect(await row.count()).toBe(1);
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  it('a list that fails to load says Failed to load emails and can be retried', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    await seed(u, 'Eventually visible');
    const page = await browser.sharedPage(server, u);
    let failing = true;
    await page.route(/\/api\/email\?/, (route) =>
      failing ? route.fulfill({ status: 503, json: { error: 'Service unavailable' } }) : route.fallback(),
    );
    await page.goto('/app/history');
    await toast(page, 'error', 'Failed to load emails').waitFor({ timeout: 20_000 }); // after the client's retries
    await page.getByRole('alert').filter({ hasText: 'Service unavailable' }).first().waitFor();
    failing = false;
    await page.getByRole('button', { name: 'Try again' }).click();
    await rows(page).filter({ hasText: 'Eventually visible' }).waitFor();
    // The button gave way to the list: the keyboard is in the search box, not lost on the page.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('type'))).toBe('search');
  });

  it('clicking a row opens the email; the keyboard reaches it through the To link', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u, 'Row click', { to: 'rows@example.com' });
    const page = await openAs(u, '/app/history');
    await rows(page).first().getByText('Row click').click();
    await page.waitForURL(`**/app/email/${id}`);
    await page.goBack();
    const link = rows(page).first().getByRole('link', { name: 'rows@example.com' });
    await link.focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(`**/app/email/${id}`);
  });
});

describe('thumbnails', () => {
  it('show the top of each email, asked for two at a time and only near the screen, rendered once', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const at = Date.now();
    for (let i = 0; i < 14; i++) await seed(u, `Round ${i + 1}`, { at: new Date(at - i * 60_000) });
    const page = await browser.sharedPage(server, u, { viewport: { width: 1280, height: 720 } });
    const problems = watchProblems(page);
    // The requests seen start, so that one of a page before this test's cannot end here.
    const inFlight = new Set<Request>();
    let most = 0;
    const asked = new Set<string>();
    const thumbnailOf = (url: string) => /\/api\/email\/([^/]+)\/thumbnail\.png/.exec(url)?.[1];
    const onRequest = (req: Request) => {
      const id = thumbnailOf(req.url());
      if (!id) return;
      asked.add(id);
      inFlight.add(req);
      most = Math.max(most, inFlight.size);
    };
    const done = (req: Request) => {
      inFlight.delete(req);
    };
    listenDuringTest(page, 'request', onRequest);
    listenDuringTest(page, 'requestfinished', done);
    listenDuringTest(page, 'requestfailed', done);

    await page.goto('/app/history');
    await expect.poll(() => rows(page).count()).toBe(14);
    const first = rows(page).first().getByTestId('thumbnail');
    await expect.poll(() => first.getAttribute('data-state'), { timeout: 30_000 }).toBe('shown');
    expect(await first.locator('img').evaluate((img: HTMLImageElement) => img.naturalWidth)).toBe(300);
    // The last rows are far below the screen: not asked for yet.
    const lastId = await rows(page).last().getAttribute('data-id');
    expect(asked.has(lastId!)).toBe(false);

    await rows(page).last().scrollIntoViewIfNeeded();
    await expect
      .poll(() => page.locator('[data-testid="thumbnail"][data-state="shown"]').count(), { timeout: 60_000 })
      .toBe(14);
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBeGreaterThan(0);
    const stored = await server.db
      .selectFrom('email_thumbnails as t')
      .innerJoin('emails as e', 'e.id', 't.email_id')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('e.user_id', '=', u.user.id)
      .executeTakeFirstOrThrow();
    expect(Number(stored.n)).toBe(14);

    // Another visit shows the stored thumbnails: nothing is rendered again.
    const renders = () => rendersCharged(server.db);
    const rendered = await renders();
    asked.clear();
    await page.reload();
    await expect
      .poll(() => page.locator('[data-testid="thumbnail"][data-state="shown"]').count(), { timeout: 30_000 })
      .toBeGreaterThanOrEqual(7);
    expect(asked.size).toBeGreaterThanOrEqual(7);
    expect(await renders()).toBe(rendered);
    expect(problems.all()).toEqual([]);
  }, 150_000);

  it('a thumbnail that cannot be had shows a quiet placeholder, and the row still works', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const email = await seed(u, 'No picture');
    const page = await browser.sharedPage(server, u);
    await page.route(/\/thumbnail\.png$/, (route) =>
      route.fulfill({
        status: 503,
        contentType: 'application/json',
        body: JSON.stringify({ error: 'The renderer is busy', code: 'busy' }),
      }),
    );
    await page.goto('/app/history');
    const thumb = rows(page).first().getByTestId('thumbnail');
    await expect.poll(() => thumb.getAttribute('data-state')).toBe('failed');
    expect(await thumb.locator('img').count()).toBe(0);
    await rows(page)
      .first()
      .click({ position: { x: 400, y: 20 } });
    await page.waitForURL(`**/app/email/${email.id}`);
  });
});

describe('what a row holds fits it', () => {
  /** Where each line of an element's text starts after the first, as "…before|after…". */
  const lineBreaks = (el: Element) => {
    const chars: Array<{ ch: string; top: number }> = [];
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent ?? '';
      for (let i = 0; i < text.length; i++) {
        const range = document.createRange();
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const rect = range.getClientRects()[0];
        if (rect) chars.push({ ch: text[i]!, top: Math.round(rect.top) });
      }
    }
    const breaks: string[] = [];
    for (let i = 1; i < chars.length; i++) {
      if (chars[i]!.top > chars[i - 1]!.top + 2)
        breaks.push(
          `${chars
            .slice(Math.max(0, i - 3), i)
            .map((c) => c.ch)
            .join('')}|${chars
            .slice(i, i + 3)
            .map((c) => c.ch)
            .join('')}`,
        );
    }
    return breaks;
  };

  it('the review badge stays inside the Status column, and a phone shows the whole address, wrapped before "@" or a dot', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(u, 'Spring Sale – v3', { to: 'client@example.com' });
    const share = await fetch(`${server.baseUrl}/api/email/${id}/share`, {
      method: 'POST',
      headers: u.headers,
    });
    const slug = ((await share.json()) as { email: { publicSlug: string } }).email.publicSlug;
    const review = await fetch(`${server.baseUrl}/api/email/public/${slug}/reviews`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Client',
        decision: 'changes_requested',
        comment: 'Bigger logo',
        version: 1,
      }),
    });
    expect(review.status).toBe(200);
    await seed(u, 'A second row', {
      to: 'a.very.long.recipient.address@an-extremely-long-domain-name.example, second@example.com',
      at: new Date(Date.now() - 60_000),
    });

    for (const [name, width, colorScheme] of [
      ['1280-light', 1280, 'light'],
      ['1280-dark', 1280, 'dark'],
      ['1024-light', 1024, 'light'],
      ['800-light', 800, 'light'],
      ['375-light', 375, 'light'],
      ['375-dark', 375, 'dark'],
    ] as const) {
      const page = await browser.sharedPage(server, u, { viewport: { width, height: 900 }, colorScheme });
      const problems = watchProblems(page, { ignore: [SANDBOX_NOISE] });
      await page.goto('/app/history');
      await expect.poll(() => rows(page).count()).toBe(2);
      const row = rows(page).filter({ hasText: 'Spring Sale – v3' });
      const badge = row.getByTestId('review-badge');
      await badge.waitFor();
      expect(await badge.innerText()).toMatch(/Changes requested v1/);
      await expect.poll(() => row.getByTestId('thumbnail').getAttribute('data-state')).not.toBe('waiting');

      // The badge lies inside its cell (table) or its card's column (phone), clear of the thumbnail.
      const fit = await badge.evaluate((el) => {
        const b = el.getBoundingClientRect();
        const box = (el.closest('td') ?? el.parentElement!.closest('.min-w-0'))!;
        const style = getComputedStyle(box);
        const outer = box.getBoundingClientRect();
        const inner = {
          left: outer.left + parseFloat(style.paddingLeft),
          right: outer.right - parseFloat(style.paddingRight),
        };
        const thumb = el.closest('[data-testid="email-row"]')!.querySelector('[data-testid="thumbnail"]');
        const t = thumb?.getBoundingClientRect();
        const clearOfThumb =
          !t || b.right <= t.left || b.left >= t.right || b.bottom <= t.top || b.top >= t.bottom;
        return {
          inside: b.left >= inner.left - 0.5 && b.right <= inner.right + 0.5,
          clearOfThumb,
          width: b.width,
        };
      });
      expect(fit, name).toMatchObject({ inside: true, clearOfThumb: true });

      // The whole address, no ellipsis; it wraps only before "@" or a dot, after a comma between
      // addresses, or after a hyphen between the words of a name (an-extremely-long-domain).
      const to = row.getByRole('link', { name: 'client@example.com' });
      for (const link of [to, rows(page).nth(1).getByRole('link').first()]) {
        expect(
          await link.evaluate(
            (el) => el.scrollWidth <= el.clientWidth + 0.5 && el.scrollHeight <= el.clientHeight + 0.5,
          ),
        ).toBe(true);
        const breaks = await link.evaluate(lineBreaks);
        for (const at of breaks) expect(at, `${name}: ${at}`).toMatch(/\|[@.]|[, -]\|/);
        expect(await link.evaluate((el) => getComputedStyle(el).textOverflow)).not.toBe('ellipsis');
      }
      await shot(page, `history-row-fit-${name}`);
      expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBe(0);
      expect(problems.all()).toEqual([]);
    }
  });
});

describe('phones', () => {
  it('at 375px the table becomes cards, and history and detail fit without sideways scrolling', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    // A minute older, so it is the last row whatever the clock's resolution.
    const { id } = await seed(u, 'A subject long enough to need truncating on a small phone screen', {
      to: 'a.very.long.recipient.address@an-extremely-long-domain-name.example, second@example.com',
      at: new Date(Date.now() - 60_000),
    });
    await seed(u, 'Second');
    const page = await openAs(u, '/app/history', PHONE);
    const problems = watchProblems(page, { ignore: [SANDBOX_NOISE] });
    await expect.poll(() => rows(page).count()).toBe(2);
    expect(await page.locator('table').count()).toBe(0);
    expect(
      await rows(page)
        .first()
        .evaluate((el) => el.tagName),
    ).toBe('LI');
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);

    await rows(page).last().click();
    await page.waitForURL(`**/app/email/${id}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.locator('iframe[data-testid="email-frame"]').waitFor();
    expect(await overflow()).toBeLessThanOrEqual(0);
    expect(problems.all()).toEqual([]);
  });
});
