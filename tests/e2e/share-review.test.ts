import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { insertVersion } from '../support/versions.ts';
import { seenMail, startAuthServer, waitForMail, type AuthServer } from '../support/auth-browser.ts';
import { listenDuringTest, setupBrowser, watchProblems } from '../support/browser.ts';
import type { TestServer } from '../support/e2e-server.ts';
import { shot } from '../support/screenshots.ts';
import { expectToast } from '../support/toasts.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { publicReviewHelpers, scrollToReviews } from '../support/public-review.ts';

/**
 * Client review: share settings, the password gate, the version picker, reviews with pins, and
 * what the owner sees (docs/decisions/0083-share-per-thread.md, 0084-viewer-tokens.md,
 * 0085-reviews-throttled-and-notified.md).
 */

const browser = setupBrowser();
let auth: AuthServer;
let server: TestServer;
const { publicPage, postReview } = publicReviewHelpers(browser, () => server);
const HOSTILE = '<img src=x onerror=alert(1)>';

beforeAll(async () => {
  auth = await startAuthServer();
  server = auth.server;
});
afterAll(async () => auth?.close());

async function seed(
  u: TestUser,
  subject: string,
  html = `<h1 style="margin:40px">${subject}</h1><p style="height:600px">Body copy</p>`,
) {
  return insertEmail(server.db, {
    userId: u.user.id,
    to: 'client@example.com',
    subject,
    html,
    inlineCss: false,
    createdAt: new Date(),
  });
}

/** The next version of a thread. */
const nextVersion = (u: TestUser, threadId: string, version: number, subject: string) =>
  insertVersion(server.db, {
    userId: u.user.id,
    threadId,
    version,
    subject,
    html: `<h1 style="margin:40px">${subject}</h1>`,
  });

async function shareByApi(u: TestUser, id: string, body?: object): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/email/${id}/share`, {
    method: 'POST',
    headers: { ...u.headers, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { email: { publicSlug: string } }).email.publicSlug;
}

const frame = (page: Page) => page.frameLocator('iframe[data-testid="email-frame"]');

describe('share settings', () => {
  it('sets an expiry and a password, rotates the link (old one dead), and shows the view count', async () => {
    const owner = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(owner, 'Settings flow');
    const page = await browser.signedInPage(server, owner);
    const problems = watchProblems(page);
    await page.goto(`/app/email/${id}`);
    await page.getByRole('button', { name: 'Share Link' }).click();
    const dialog = page.getByRole('dialog', { name: 'Share Link' });
    await dialog.getByRole('switch', { name: 'Share publicly' }).click();
    await expectToast(page, 'Email shared successfully!', 'Public link has been generated');
    const link = dialog.getByRole('textbox', { name: 'Public link' });
    const firstUrl = await link.inputValue();
    expect(await dialog.getByTestId('share-stats').innerText()).toContain('0 views · not opened yet');
    expect(await dialog.getByTestId('share-expiry').innerText()).toBe('Never expires');

    await dialog.getByRole('radio', { name: '7 Days' }).click();
    await expectToast(page, 'Sharing updated', 'The link expires in 7 days');
    await expect.poll(() => dialog.getByTestId('share-expiry').innerText()).toMatch(/^Expires /);
    const row = await server.db
      .selectFrom('email_shares')
      .select('expires_at')
      .where('thread_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Math.round((row.expires_at!.getTime() - Date.now()) / 86_400_000)).toBe(7);

    // A visit counts.
    const visitor = await publicPage(new URL(firstUrl).pathname);
    await visitor.getByRole('heading', { level: 1, name: 'Settings flow' }).waitFor();
    await dialog.getByRole('button', { name: 'Close' }).click();
    await page.reload();
    await page.getByRole('button', { name: 'Share Link' }).click();
    await expect.poll(() => dialog.getByTestId('share-stats').innerText()).toMatch(/^1 view · last viewed/);
    // After a reload the dialog shows the length chosen, not only the date.
    const choice = (name: string) => dialog.getByRole('radio', { name }).getAttribute('aria-checked');
    expect([await choice('7 Days'), await choice('1 Day'), await choice('Never')]).toEqual([
      'true',
      'false',
      'false',
    ]);
    await shot(dialog, 'share-dialog-1280');

    await dialog.getByRole('button', { name: 'Set Password' }).click();
    await dialog.getByLabel('New password').fill('ab');
    await dialog.getByRole('button', { name: 'Save Password' }).click();
    await dialog.getByText('Password must be at least 4 characters').waitFor();
    await dialog.getByLabel('New password').fill('client secret');
    await dialog.getByRole('button', { name: 'Save Password' }).click();
    await expectToast(page, 'Sharing updated', 'Viewers need the new password');
    await expect
      .poll(() => dialog.getByTestId('share-password-state').innerText())
      .toBe('Password protected');

    await dialog.getByRole('button', { name: 'Rotate Link' }).click();
    const confirm = page.getByRole('dialog', { name: 'Rotate Link?' });
    await confirm.getByRole('button', { name: 'Rotate Link' }).click();
    await expectToast(page, 'Link rotated', 'The old link no longer works');
    await expect.poll(() => link.inputValue()).not.toBe(firstUrl);
    const newUrl = await link.inputValue();
    expect(newUrl).toMatch(new RegExp(`^${server.baseUrl}/s/[A-Za-z0-9_-]{24}$`));

    // The old link: exactly what a random slug shows.
    const old = await publicPage(new URL(firstUrl).pathname);
    await old.getByRole('heading', { name: 'Email Not Found' }).waitFor();
    await old.getByText('Email has been deleted or no longer public').waitFor();
    const oldMain = await old.locator('main').innerHTML();
    const random = await publicPage(`/s/${'q'.repeat(24)}`);
    await random.getByRole('heading', { name: 'Email Not Found' }).waitFor();
    expect(oldMain).toBe(await random.locator('main').innerHTML());

    // Revoke: the switch off, as before.
    await dialog.getByRole('switch', { name: 'Share publicly' }).click();
    // Turning sharing off asks first (src/web/features/email-detail/share-dialog.tsx).
    await page
      .getByRole('dialog', { name: 'Turn Sharing Off?' })
      .getByRole('button', { name: 'Turn Sharing Off' })
      .click();
    await expectToast(page, 'Sharing disabled');
    const revoked = await publicPage(new URL(newUrl).pathname);
    await revoked.getByRole('heading', { name: 'Email Not Found' }).waitFor();
    expect(problems.all()).toEqual([]);
  });

  it('an expired link looks like a random slug, and the owner is told it expired and what a new link keeps', async () => {
    const owner = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(owner, 'Expiring', '<h1>Embargoed launch copy</h1>');
    const slug = await shareByApi(owner, id, { expiresInDays: 7, password: 'hunter22' });
    await server.db
      .updateTable('email_shares')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('thread_id', '=', id)
      .execute();
    const page = await publicPage(`/s/${slug}`);
    await page.getByRole('heading', { name: 'Email Not Found' }).waitFor();
    const expired = await page.locator('main').innerHTML();
    const random = await publicPage(`/s/${'z'.repeat(24)}`);
    await random.getByRole('heading', { name: 'Email Not Found' }).waitFor();
    expect(expired).toBe(await random.locator('main').innerHTML());

    const owned = await browser.signedInPage(server, owner);
    const problems = watchProblems(owned);
    await owned.goto(`/app/email/${id}`);
    await owned.getByRole('button', { name: 'Share Link' }).click();
    const dialog = owned.getByRole('dialog', { name: 'Share Link' });
    const expiredNote = dialog.getByTestId('share-expired');
    await expiredNote.getByText(/^The link expired .+\.$/).waitFor();
    // Before the switch: what the new link will be (docs/decisions/0123-renewed-link-keeps-its-protection.md).
    const renewal = dialog.getByRole('list', { name: 'Turn sharing on to make a new link:' });
    expect(await renewal.getByRole('listitem').allInnerTexts()).toEqual([
      'Expires in 7 days',
      'Same password as before',
    ]);
    const toggle = dialog.getByRole('switch', { name: 'Share publicly' });
    expect(await toggle.getAttribute('aria-checked')).toBe('false');
    await shot(dialog, 'share-dialog-expired-1280-light');

    await toggle.click();
    await expectToast(owned, 'Email shared successfully!', 'Public link has been generated');
    const link = dialog.getByRole('textbox', { name: 'Public link' });
    await expect.poll(() => link.inputValue()).toMatch(/\/s\/[A-Za-z0-9_-]{24}$/);
    const newUrl = await link.inputValue();
    expect(new URL(newUrl).pathname).not.toBe(`/s/${slug}`);
    expect(await expiredNote.count()).toBe(0);
    expect(await dialog.getByTestId('share-password-state').innerText()).toBe('Password protected');
    expect(await dialog.getByTestId('share-expiry').innerText()).toMatch(/^Expires /);
    await dialog.getByText('Anyone with the link and its password can view this email.').waitFor();
    const row = await server.db
      .selectFrom('email_shares')
      .select(['expires_at', 'expires_in_days'])
      .where('thread_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.expires_in_days).toBe(7);
    expect(Math.round((row.expires_at!.getTime() - Date.now()) / 86_400_000)).toBe(7);

    // Nobody gets the embargoed email without the password it had.
    const anonymous = await fetch(`${server.baseUrl}/api/email/public/${new URL(newUrl).pathname.slice(3)}`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain('Embargoed');
    const visitor = await publicPage(new URL(newUrl).pathname);
    await visitor.getByRole('heading', { name: 'Password Required' }).waitFor();
    await visitor.getByLabel('Password', { exact: true }).fill('hunter22');
    await visitor.getByRole('button', { name: 'View Email' }).click();
    await frame(visitor).getByRole('heading', { name: 'Embargoed launch copy' }).waitFor();
    expect(problems.all()).toEqual([]);
  });
});

describe('a protected link', () => {
  it('asks for the password and sends nothing of the email before the unlock; the unlock lasts the session', async () => {
    const owner = await createUser(server.db, { plan: 'pro' });
    const subject = 'Confidential launch';
    const { id } = await seed(owner, subject, '<h1>Top secret body</h1>');
    const slug = await shareByApi(owner, id, { password: 'client secret' });

    const context = await browser.newContext({ baseURL: server.baseUrl });
    const page = await context.newPage();
    const problems = watchProblems(page, { ignore: [/401/, /Failed to load resource/] });
    const bodies: { url: string; body: string; at: number }[] = [];
    let unlockedAt = Infinity;
    page.on('response', (res) => {
      void res
        .text()
        .then((body) => bodies.push({ url: res.url(), body, at: Date.now() }))
        .catch(() => undefined);
    });
    await page.goto(`/s/${slug}`);
    await page.getByRole('heading', { name: 'Password Required' }).waitFor();
    expect(await page.title()).toBe('Password Required · Proofmail');
    await shot(page, 'public-gate-1280-light');

    await page.getByLabel('Password', { exact: true }).fill('wrong one');
    await page.getByRole('button', { name: 'View Email' }).click();
    await page.getByText('Wrong password').waitFor();
    // Nothing answered so far carries the email.
    await page.waitForTimeout(200);
    for (const b of bodies) {
      expect(b.body, b.url).not.toContain(subject);
      expect(b.body, b.url).not.toContain('Top secret body');
    }

    unlockedAt = Date.now();
    await page.getByLabel('Password', { exact: true }).fill('client secret');
    await page.getByRole('button', { name: 'View Email' }).click();
    await page.getByRole('heading', { level: 1, name: subject }).waitFor();
    await frame(page).getByRole('heading', { name: 'Top secret body' }).waitFor();
    for (const b of bodies.filter((x) => x.at < unlockedAt)) expect(b.body).not.toContain(subject);
    expect(await page.evaluate(() => document.cookie)).toBe('');
    expect(await page.evaluate((s) => sessionStorage.getItem(`proofmail.viewer.${s}`), slug)).toMatch(
      /^\d+\./,
    );

    // A reload in the same session stays unlocked; a new session asks again.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: subject }).waitFor();
    const fresh = await publicPage(`/s/${slug}`);
    await fresh.getByRole('heading', { name: 'Password Required' }).waitFor();
    expect(problems.all()).toEqual([]);
  });

  it('20 wrong passwords are throttled with a retry time', { timeout: 180_000 }, async () => {
    // The per-link counter counts in fixed 15-minute windows (src/server/http/rate-limit.ts):
    // guesses that straddle a window's edge count in two windows, and the 21st would go through.
    // So they start in a window with 90 s to spare (the 20 take up to about 40 s on a busy machine).
    const windowMs = 15 * 60_000;
    const left = windowMs - (Date.now() % windowMs);
    if (left < 90_000) await new Promise((resolve) => setTimeout(resolve, left + 500));
    const owner = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(owner, 'Guess me');
    const slug = await shareByApi(owner, id, { password: 'client secret' });
    const page = await publicPage(`/s/${slug}`);
    await page.getByRole('heading', { name: 'Password Required' }).waitFor();
    const input = page.getByLabel('Password', { exact: true });
    for (let i = 0; i < 20; i++) {
      await input.fill(`guess ${i}`);
      // Each guess's own answer: the message stays on screen from the first, so it cannot tell.
      const answered = page.waitForResponse((r) => r.url().endsWith(`/api/email/public/${slug}/unlock`));
      await page.getByRole('button', { name: 'View Email' }).click();
      expect((await answered).status()).toBe(401);
      await page.getByText('Wrong password').waitFor();
    }
    await input.fill('client secret');
    await page.getByRole('button', { name: 'View Email' }).click();
    await page.getByText(/^Too many wrong passwords\. Try again in \d+ minutes?\.$/).waitFor();
  });
});

describe('reviews', () => {
  it('a reviewer approves and comments with a pin; the owner sees it on the detail page, in history and in the mailbox', async () => {
    const owner = await createUser(server.db, { plan: 'pro' });
    const subject = 'Holiday promo';
    const { id } = await seed(owner, subject);
    const slug = await shareByApi(owner, id);
    const seen = await seenMail(server, owner.user.email);

    const page = await publicPage(`/s/${slug}`);
    const problems = watchProblems(page);
    let alerted = false;
    listenDuringTest(page, 'dialog', (d) => {
      alerted = true;
      void d.dismiss();
    });
    await page.getByRole('heading', { level: 1, name: subject }).waitFor();
    await frame(page).getByRole('heading', { name: subject }).waitFor();

    // Nothing of the review section loads before the reader heads for it.
    expect(await page.getByLabel('Your name').count()).toBe(0);
    await scrollToReviews(page);
    // A plain comment pinned to a point of the email.
    await page.getByLabel('Your name').fill(HOSTILE);
    await page.getByRole('radio', { name: 'Comment' }).click();
    await page.getByRole('button', { name: 'Pin to the Email' }).click();
    const layer = page.getByTestId('pin-layer');
    const box = (await layer.boundingBox())!;
    // The page brought the email into view for the pick.
    await expect.poll(async () => (await layer.boundingBox())!.y).toBeGreaterThanOrEqual(0);
    await layer.click({ position: { x: box.width * 0.5, y: 100 } });
    await page.getByTestId('pin-draft').waitFor();
    await page.getByLabel('Comment', { exact: true }).fill(`Move the logo ${HOSTILE}`);
    await page.getByRole('button', { name: 'Send Review' }).click();
    // A plain comment mails nobody: the page says so (docs/decisions/0124-review-answer-tells-the-reviewer.md).
    await expectToast(page, 'Comment saved', `Thank you, ${HOSTILE}. The sender will see it with the email.`);
    await page.getByTestId('pin-marker').filter({ hasText: '1' }).waitFor();
    const review = page.getByTestId('review').first();
    expect(await review.getByTestId('review-name').innerText()).toBe(HOSTILE);
    expect(await review.getByTestId('review-comment').innerText()).toBe(`Move the logo ${HOSTILE}`);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    const pin = await server.db
      .selectFrom('email_reviews')
      .select(['pin_x', 'pin_y', 'pin_width'])
      .where('thread_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(pin.pin_x!).toBeCloseTo(0.5, 1);
    expect(pin.pin_width).toBeGreaterThan(300);

    // Missing name: a clear message, nothing sent.
    await page.getByLabel('Your name').fill('');
    await page.getByRole('radio', { name: 'Approve' }).click();
    await page.getByRole('button', { name: 'Send Review' }).click();
    await page.getByText('Name is required').waitFor();
    await page.getByLabel('Your name').fill('Dana from Acme');
    await page.getByRole('button', { name: 'Send Review' }).click();
    await expectToast(page, 'Approval sent', 'Thank you, Dana from Acme. The sender has been told.');
    await page.getByRole('heading', { name: 'Reviews (2)' }).waitFor();
    await shot(page, 'public-reviews-1280-light');
    expect(alerted).toBe(false);
    expect(problems.all()).toEqual([]);

    const mail = await waitForMail(server, owner.user.email, /approved/, seen);
    expect(mail.subject).toBe(`Dana from Acme approved “${subject}” (v1)`);
    expect(mail.text).toContain(`${server.baseUrl}/app/email/${id}`);

    const owned = await browser.signedInPage(server, owner);
    const ownerProblems = watchProblems(owned);
    owned.on('dialog', (d) => {
      alerted = true;
      void d.dismiss();
    });
    await owned.goto(`/app/email/${id}`);
    const panel = owned.getByTestId('reviews-panel');
    await panel.getByText(`Move the logo ${HOSTILE}`).waitFor();
    await panel.getByText('Dana from Acme').waitFor();
    expect(await panel.getByTestId('review-badge').first().innerText()).toBe('Approved v1');
    expect(await owned.locator('img[src="x"]').count()).toBe(0);
    // The pin is on the owner's preview too, where the reviewer put it, numbered as in the panel.
    const ownerPin = owned.getByTestId('pin-marker');
    await ownerPin.waitFor();
    expect(await ownerPin.innerText()).toBe('1');
    const where = await ownerPin.evaluate((el) => {
      const box = el.parentElement!.getBoundingClientRect();
      const at = el.getBoundingClientRect();
      return (at.left + at.width / 2 - box.left) / box.width;
    });
    expect(where).toBeCloseTo(pin.pin_x!, 1);
    await shot(owned, 'detail-reviews-1280-light');

    await owned.goto('/app/history');
    const badge = owned.getByRole('table').getByTestId('review-badge');
    await badge.waitFor();
    expect(await badge.innerText()).toBe('Approved v1');
    await shot(owned, 'history-badge-1280-light');
    expect(alerted).toBe(false);
    expect(ownerProblems.all()).toEqual([]);
  });

  it('the owner deletes a review, then all of them, each after asking; the public page follows', async () => {
    const owner = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(owner, 'Spam target');
    const slug = await shareByApi(owner, id);
    for (const name of ['Spammer', 'Dana', 'Lee'])
      await postReview(slug, { name, decision: 'comment', comment: `From ${name}`, version: 1 });
    const page = await browser.signedInPage(server, owner);
    const problems = watchProblems(page);
    await page.goto(`/app/email/${id}`);
    const panel = page.getByTestId('reviews-panel');
    await panel.getByText('From Spammer').waitFor();

    await panel.getByRole('button', { name: 'Delete the review by Spammer' }).click();
    const one = page.getByRole('dialog', { name: 'Delete This Review?' });
    // Cancel keeps it.
    await one.getByRole('button', { name: 'Cancel' }).click();
    expect(await panel.getByTestId('review').count()).toBe(3);
    await panel.getByRole('button', { name: 'Delete the review by Spammer' }).click();
    await one.getByRole('button', { name: 'Delete Review' }).click();
    await expectToast(page, 'Review deleted');
    await expect.poll(() => panel.getByTestId('review').count()).toBe(2);
    expect(await panel.getByText('From Spammer').count()).toBe(0);

    await panel.getByRole('button', { name: 'Delete All' }).click();
    const all = page.getByRole('dialog', { name: 'Delete All Reviews?' });
    await all.getByText('All 2 reviews, of every version, are deleted for good').waitFor();
    await all.getByRole('button', { name: 'Delete All Reviews' }).click();
    await expectToast(page, 'Reviews deleted');
    await panel.getByText('No reviews yet.', { exact: false }).waitFor();
    expect(problems.all()).toEqual([]);

    const res = await fetch(`${server.baseUrl}/api/email/public/${slug}`);
    expect(((await res.json()) as { reviews: unknown[] }).reviews).toEqual([]);
  });

  it('the version picker shows the latest by default and links each version on its own', async () => {
    const owner = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(owner, 'Round one');
    const slug = await shareByApi(owner, id);
    await nextVersion(owner, id, 2, 'Round two');
    const page = await publicPage(`/s/${slug}`);
    await page.getByRole('heading', { level: 1, name: 'Round two' }).waitFor();
    const picker = page.getByRole('combobox', { name: 'Version' });
    expect(await picker.inputValue()).toBe('2');
    await picker.selectOption('1');
    await page.getByRole('heading', { level: 1, name: 'Round one' }).waitFor();
    expect(new URL(page.url()).searchParams.get('v')).toBe('1');
    await frame(page).getByRole('heading', { name: 'Round one' }).waitFor();
    // A review is given on the version on show.
    await scrollToReviews(page);
    await page.getByLabel('Your name').fill('Sam');
    await page.getByRole('radio', { name: 'Request Changes' }).click();
    await page.getByRole('button', { name: 'Send Review' }).click();
    // Of an older round: the answer says so, and the page keeps the version reviewed.
    await expectToast(
      page,
      'Change request sent',
      'Thank you, Sam. The sender has been told. A newer version, version 2, is now available.',
    );
    await page.getByTestId('review-badge').filter({ hasText: 'Changes requested v1' }).waitFor();

    const direct = await publicPage(`/s/${slug}?v=1`);
    await direct.getByRole('heading', { level: 1, name: 'Round one' }).waitFor();
    const latest = await publicPage(`/s/${slug}`);
    await latest.getByRole('heading', { level: 1, name: 'Round two' }).waitFor();
  });
});

describe('screens', () => {
  it('the public page with reviews, and the gate, at 1280 and 375 px, light and dark', async () => {
    const owner = await createUser(server.db, { plan: 'pro' });
    const { id } = await seed(owner, 'A rather long subject line for the autumn catalogue launch email');
    const slug = await shareByApi(owner, id);
    await nextVersion(owner, id, 2, 'A rather long subject line for the autumn catalogue launch email');
    await fetch(`${server.baseUrl}/api/email/public/${slug}/reviews`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Dana from Acme',
        decision: 'changes_requested',
        comment: 'Make the button green, please.\nAnd the logo bigger.',
        version: 2,
        pin: { x: 0.3, y: 0.1, width: 800 },
      }),
    });
    const lockedId = (await seed(owner, 'Locked')).id;
    const lockedSlug = await shareByApi(owner, lockedId, { password: 'client secret' });
    for (const width of [1280, 375]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const page = await publicPage(`/s/${slug}`, { viewport: { width, height: 900 }, colorScheme });
        const problems = watchProblems(page);
        await page.getByTestId('pin-marker').waitFor();
        await scrollToReviews(page);
        await page.getByRole('heading', { name: 'Reviews (1)' }).waitFor();
        // Nothing wider than the screen.
        expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
        await shot(page, `public-${width}-${colorScheme}`);
        expect(problems.all()).toEqual([]);
        const gate = await publicPage(`/s/${lockedSlug}`, { viewport: { width, height: 800 }, colorScheme });
        await gate.getByRole('heading', { name: 'Password Required' }).waitFor();
        await shot(gate, `gate-${width}-${colorScheme}`);
      }
    }
  });
});
