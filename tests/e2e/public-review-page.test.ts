import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { insertVersion } from '../support/versions.ts';
import { listenDuringTest, setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { shot } from '../support/screenshots.ts';
import { expectToast } from '../support/toasts.ts';
import { createUser, type TestUser } from '../support/users.ts';
import { publicReviewHelpers, scrollToReviews } from '../support/public-review.ts';

/**
 * The client's review page /s/{slug} as a reviewer meets it: long text that must wrap, a decision
 * that must be chosen, older and missing versions, the list's wording, the preview's alignment,
 * and pins placed and read without a mouse (src/web/features/public-view/,
 * src/web/components/review/).
 */

const browser = setupBrowser();
let server: TestServer;
const { publicPage, postReview } = publicReviewHelpers(browser, () => server);
let owner: TestUser;

beforeAll(async () => {
  server = await startTestServer();
  owner = await createUser(server.db, { plan: 'pro' });
});
afterAll(async () => server?.close());

const page800 = (subject: string) =>
  `<h1 style="margin:40px">${subject}</h1><p style="height:900px;margin:0 40px">Body copy</p>`;

async function seed(subject: string) {
  return insertEmail(server.db, {
    userId: owner.user.id,
    to: 'client@example.com',
    subject,
    html: page800(subject),
    inlineCss: false,
    createdAt: new Date(),
  });
}

/** The next version of a thread of the owner's. */
const nextVersion = (threadId: string, version: number, subject: string) =>
  insertVersion(server.db, { userId: owner.user.id, threadId, version, subject, html: page800(subject) });

async function share(id: string): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/email/${id}/share`, {
    method: 'POST',
    headers: owner.headers,
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { email: { publicSlug: string } }).email.publicSlug;
}

const reviewCard = (page: Page) => page.locator('section[aria-labelledby="review-title"]');
const frame = (page: Page) => page.frameLocator('iframe[data-testid="email-frame"]');

/** Left and right edges of an element on the page, in CSS px. */
async function edges(locator: Locator) {
  const box = (await locator.boundingBox())!;
  return { left: Math.round(box.x), right: Math.round(box.x + box.width) };
}

const pageWidth = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

/** The element that has focus: its role, accessible label or text, and test id. */
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    return {
      role: el?.getAttribute('role') ?? el?.tagName.toLowerCase(),
      label: el?.getAttribute('aria-label') ?? el?.textContent?.trim(),
      id: el?.id,
      testid: el?.dataset.testid,
    };
  });

describe('long reviewer text', () => {
  it('wraps inside the review card at 375 and 1280 px, light and dark, and in the owner panel', async () => {
    const { id } = await seed('Spring sale');
    const slug = await share(id);
    const url =
      'https://shop.example.com/spring-sale/landing?utm_source=newsletter&utm_medium=email&utm_campaign=spring_sale_2026&utm_content=hero_button';
    await postReview(slug, {
      name: 'Marta (Acme marketing)',
      decision: 'changes_requested',
      comment: `The CTA should go to ${url} instead.`,
      version: 1,
      pin: null,
    });
    await postReview(slug, {
      name: 'N'.repeat(80),
      decision: 'comment',
      comment: `https://example.com/${'a'.repeat(1900)}`,
      version: 1,
      pin: null,
    });
    for (const width of [375, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const page = await publicPage(`/s/${slug}`, { viewport: { width, height: 900 }, colorScheme });
        const problems = watchProblems(page);
        await scrollToReviews(page);
        await page.getByTestId('review').nth(1).waitFor();
        expect(await pageWidth(page), `${width} ${colorScheme}`).toBeLessThanOrEqual(width);
        const card = await edges(reviewCard(page));
        for (const inside of [
          page.getByLabel('Your name'),
          page.getByLabel(/^Comment/),
          page.getByRole('button', { name: 'Send Review' }),
          ...(await page.getByTestId('review-name').all()),
          ...(await page.getByTestId('review-comment').all()),
        ]) {
          const { right } = await edges(inside);
          expect(right, `${width} ${colorScheme}`).toBeLessThanOrEqual(card.right);
        }
        await reviewCard(page).scrollIntoViewIfNeeded();
        await shot(page, `public-long-review-${width}-${colorScheme}`);
        expect(problems.all()).toEqual([]);
      }
    }
    // The owner's page shows the same list (src/web/components/review/review-list.tsx).
    for (const width of [375, 1280]) {
      const owned = await browser.pageWith(server, owner, {
        viewport: { width, height: 900 },
        colorScheme: 'light',
      });
      await owned.goto(`/app/email/${id}`);
      const panel = owned.getByTestId('reviews-panel');
      await panel.getByTestId('review').nth(1).waitFor();
      const box = await edges(panel);
      expect(box.right).toBeLessThanOrEqual(width);
      for (const inside of [
        ...(await panel.getByTestId('review-name').all()),
        ...(await panel.getByTestId('review-comment').all()),
      ]) {
        expect((await edges(inside)).right).toBeLessThanOrEqual(box.right);
      }
      await panel.scrollIntoViewIfNeeded();
      await shot(owned, `owner-long-review-${width}-light`);
    }
  });
});

describe('the review form', () => {
  it('chooses no decision for the reviewer: Send Review says what is missing and sends nothing', async () => {
    const { id } = await seed('Autumn proof');
    const slug = await share(id);
    const page = await publicPage(`/s/${slug}`);
    const problems = watchProblems(page);
    const posts: string[] = [];
    listenDuringTest(page, 'request', (req) => {
      if (req.method() === 'POST' && req.url().endsWith('/reviews')) posts.push(req.url());
    });
    await scrollToReviews(page);
    const decisions = page.getByRole('radiogroup', { name: 'Decision' }).getByRole('radio');
    expect(await decisions.evaluateAll((els) => els.map((el) => el.getAttribute('aria-checked')))).toEqual([
      'false',
      'false',
      'false',
    ]);

    await page.getByLabel('Your name').fill('Dana from Acme');
    await page.getByRole('button', { name: 'Send Review' }).click();
    const message = page.getByText('Choose Approve, Request Changes or Comment', { exact: true });
    await message.waitFor();
    // Said where the choice is made, and by the button; the choice has focus.
    const messageId = await message.getAttribute('id');
    expect(messageId).toBeTruthy();
    const describedBy = (l: Locator) => l.evaluate((el) => el.getAttribute('aria-describedby') ?? '');
    expect((await describedBy(page.getByRole('group', { name: 'Your review of v1' }))).split(' ')).toContain(
      messageId,
    );
    expect((await describedBy(page.getByRole('button', { name: 'Send Review' }))).split(' ')).toContain(
      messageId,
    );
    expect(await focused(page)).toMatchObject({ role: 'radio', label: 'Approve' });
    await shot(page, 'public-decision-missing-1280-light');
    expect(posts).toEqual([]);
    expect(
      await server.db.selectFrom('email_reviews').select('id').where('thread_id', '=', id).execute(),
    ).toEqual([]);

    // Choosing one clears the message; after a send the next review chooses again.
    await page.getByRole('radio', { name: 'Comment' }).click();
    expect(await message.count()).toBe(0);
    await page.getByLabel('Comment', { exact: true }).fill('Looks good so far.');
    await page.getByRole('button', { name: 'Send Review' }).click();
    await expectToast(
      page,
      'Comment saved',
      'Thank you, Dana from Acme. The sender will see it with the email.',
    );
    expect(posts).toHaveLength(1);
    await expect
      .poll(() => decisions.evaluateAll((els) => els.map((el) => el.getAttribute('aria-checked'))))
      .toEqual(['false', 'false', 'false']);
    const rows = await server.db
      .selectFrom('email_reviews')
      .select('decision')
      .where('thread_id', '=', id)
      .execute();
    expect(rows).toEqual([{ decision: 'comment' }]);
    expect(problems.all()).toEqual([]);
  });

  it('says the sender has been told only when they were mailed', async () => {
    // An owner of its own: this one turns review notifications off.
    const quiet = await createUser(server.db, { plan: 'pro' });
    const { id } = await insertEmail(server.db, {
      userId: quiet.user.id,
      to: 'client@example.com',
      subject: 'Told or not',
      html: page800('Told or not'),
      inlineCss: false,
      createdAt: new Date(),
    });
    const res = await fetch(`${server.baseUrl}/api/email/${id}/share`, {
      method: 'POST',
      headers: quiet.headers,
    });
    const slug = ((await res.json()) as { email: { publicSlug: string } }).email.publicSlug;
    const page = await publicPage(`/s/${slug}`);
    const problems = watchProblems(page);
    await scrollToReviews(page);
    await page.getByLabel('Your name').fill('Kim');
    await page.getByRole('radio', { name: 'Approve' }).click();
    await page.getByRole('button', { name: 'Send Review' }).click();
    await expectToast(page, 'Approval sent', 'Thank you, Kim. The sender has been told.');

    const off = await fetch(`${server.baseUrl}/api/user/review-notifications`, {
      method: 'PUT',
      headers: { ...quiet.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ reviewNotifications: false }),
    });
    expect(off.status).toBe(200);
    await page.getByRole('radio', { name: 'Request Changes' }).click();
    await page.getByLabel('Comment (optional)').fill('Bigger logo.');
    await page.getByRole('button', { name: 'Send Review' }).click();
    await expectToast(page, 'Change request saved', 'Thank you, Kim. The sender will see it with the email.');
    await page.getByRole('heading', { name: 'Reviews (2)' }).waitFor();
    expect(problems.all()).toEqual([]);
  });

  it('heads the list "Reviews (N)", counting every kind, as its empty text says', async () => {
    const { id } = await seed('Wording');
    const slug = await share(id);
    const page = await publicPage(`/s/${slug}`);
    await scrollToReviews(page);
    await page.getByRole('heading', { name: 'Reviews (0)' }).waitFor();
    await page.getByText(/^No reviews yet\./).waitFor();
    await postReview(slug, { name: 'Sam', decision: 'approved', comment: null, version: 1, pin: null });
    await postReview(slug, { name: 'Kim', decision: 'comment', comment: 'Nice.', version: 1, pin: null });
    await page.reload();
    await scrollToReviews(page);
    await page.getByRole('heading', { name: 'Reviews (2)' }).waitFor();
    expect(await page.getByRole('heading', { name: /^Comments/ }).count()).toBe(0);
  });
});

describe('versions', () => {
  it('an older round says a newer version exists and links to the latest', async () => {
    const { id } = await seed('Round one');
    const slug = await share(id);
    await nextVersion(id, 2, 'Round two');
    await nextVersion(id, 3, 'Round three');
    for (const width of [1280, 375]) {
      const page = await publicPage(`/s/${slug}?v=1`, {
        viewport: { width, height: 900 },
        colorScheme: 'light',
      });
      await page.getByRole('heading', { level: 1, name: 'Round one' }).waitFor();
      const notices = page.getByTestId('newer-version');
      await notices.first().waitFor();
      expect(await notices.first().innerText()).toBe(
        'A newer version exists: version 3. View the latest version',
      );
      await shot(page, `public-older-version-${width}-light`);
      // Told again where the review is given.
      await scrollToReviews(page);
      await reviewCard(page).getByTestId('newer-version').waitFor();
      expect(await pageWidth(page)).toBeLessThanOrEqual(width);
    }
    const page = await publicPage(`/s/${slug}?v=1&view=375`);
    await page.getByRole('heading', { level: 1, name: 'Round one' }).waitFor();
    const link = page
      .getByTestId('newer-version')
      .first()
      .getByRole('link', { name: 'View the latest version' });
    await link.click();
    await page.getByRole('heading', { level: 1, name: 'Round three' }).waitFor();
    const url = new URL(page.url());
    expect(url.searchParams.get('v')).toBeNull();
    // The preview's view is kept.
    expect(url.searchParams.get('view')).toBe('375');
    expect(await page.getByTestId('newer-version').count()).toBe(0);
    // The latest itself says nothing of the kind.
    await page.goto(`/s/${slug}?v=3`);
    await page.getByRole('heading', { level: 1, name: 'Round three' }).waitFor();
    expect(await page.getByTestId('newer-version').count()).toBe(0);
  });

  it('a version sent while the page is open: the reviewed one stays on show, and the page says a newer one exists', async () => {
    // docs/decisions/0124-review-answer-tells-the-reviewer.md
    const { id } = await seed('Open round one');
    const slug = await share(id);
    const page = await publicPage(`/s/${slug}`);
    const problems = watchProblems(page);
    await page.getByRole('heading', { level: 1, name: 'Open round one' }).waitFor();
    await scrollToReviews(page);
    expect(await page.getByTestId('newer-version').count()).toBe(0);
    // The owner sends the next round while the client reads the first.
    await nextVersion(id, 2, 'Open round two');

    await page.getByLabel('Your name').fill('Dana');
    await page.getByRole('radio', { name: 'Approve' }).click();
    await page.getByRole('button', { name: 'Send Review' }).click();
    await expectToast(
      page,
      'Approval sent',
      'Thank you, Dana. The sender has been told. A newer version, version 2, is now available.',
    );
    // The approved version is still the one on show, under its own address, told to be older.
    await reviewCard(page).getByTestId('review-badge').filter({ hasText: 'Approved v1' }).waitFor();
    await expect.poll(() => new URL(page.url()).searchParams.get('v')).toBe('1');
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Open round one');
    await frame(page).getByRole('heading', { name: 'Open round one' }).waitFor();
    const notices = page.getByTestId('newer-version');
    await expect.poll(() => notices.count()).toBe(2);
    expect(await notices.first().innerText()).toBe(
      'A newer version exists: version 2. View the latest version',
    );
    // The form says it too, before anything else is sent about this round.
    await reviewCard(page)
      .getByRole('group', { name: 'Your review of v1' })
      .getByTestId('newer-version')
      .waitFor();
    expect(await page.getByRole('combobox', { name: 'Version' }).inputValue()).toBe('1');
    await shot(page, 'public-reviewed-older-1280-light');

    // Following it shows the new round, to be reviewed as such.
    await notices.first().getByRole('link', { name: 'View the latest version' }).click();
    await page.getByRole('heading', { level: 1, name: 'Open round two' }).waitFor();
    expect(new URL(page.url()).searchParams.get('v')).toBeNull();
    await scrollToReviews(page);
    await reviewCard(page).getByRole('group', { name: 'Your review of v2' }).waitFor();
    expect(await page.getByTestId('newer-version').count()).toBe(0);
    expect(problems.all()).toEqual([]);
  });

  it('a newer version found before the review is sent is told at the form, not swapped in', async () => {
    const { id } = await seed('Quiet round one');
    const slug = await share(id);
    const page = await publicPage(`/s/${slug}`);
    const problems = watchProblems(page);
    await page.getByRole('heading', { level: 1, name: 'Quiet round one' }).waitFor();
    await scrollToReviews(page);
    await nextVersion(id, 2, 'Quiet round two');
    // A first comment makes the page read the email again: it learns of version 2.
    await page.getByLabel('Your name').fill('Lee');
    await page.getByRole('radio', { name: 'Comment' }).click();
    await page.getByLabel('Comment', { exact: true }).fill('The date looks wrong.');
    await page.getByRole('button', { name: 'Send Review' }).click();
    await expectToast(
      page,
      'Comment saved',
      'Thank you, Lee. The sender will see it with the email. A newer version, version 2, is now available.',
    );
    // Before the approval: the form names the round on show and says a newer one exists.
    const group = reviewCard(page).getByRole('group', { name: 'Your review of v1' });
    await group.getByTestId('newer-version').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Quiet round one');
    await frame(page).getByRole('heading', { name: 'Quiet round one' }).waitFor();
    // A reload keeps what was on show.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Quiet round one' }).waitFor();
    await page.getByTestId('newer-version').first().waitFor();
    expect(problems.all()).toEqual([]);
  });

  it('a version a live link does not have says so and links to the latest; a dead link looks like any other', async () => {
    const { id } = await seed('Live thread');
    const slug = await share(id);
    const v2Id = await nextVersion(id, 2, 'Live thread v2');
    await nextVersion(id, 3, 'Live thread v3');
    const deleted = await fetch(`${server.baseUrl}/api/email/${v2Id}`, {
      method: 'DELETE',
      headers: owner.headers,
    });
    expect(deleted.status).toBeLessThan(300);

    for (const v of ['999', '2']) {
      const page = await publicPage(`/s/${slug}?v=${v}`);
      const problems = watchProblems(page, { ignore: [/404/] });
      await page.getByRole('heading', { level: 1, name: 'Version Not Available' }).waitFor();
      expect(await page.title()).toBe('Version Not Available · Proofmail');
      await page
        .getByText(
          `This link has no version ${v}: it may have been deleted. The latest version is still here.`,
        )
        .waitFor();
      if (v === '999') await shot(page, 'public-version-missing-1280-light');
      const latest = page.getByRole('link', { name: 'View the Latest Version' });
      expect(await latest.getAttribute('href')).toBe(`/s/${slug}`);
      await latest.click();
      await page.getByRole('heading', { level: 1, name: 'Live thread v3' }).waitFor();
      expect(new URL(page.url()).searchParams.get('v')).toBeNull();
      expect(problems.all()).toEqual([]);
    }

    // Revoked: the same page as a slug that never existed, with or without a version.
    const { id: gone } = await seed('Revoked thread');
    const goneSlug = await share(gone);
    const revoke = await fetch(`${server.baseUrl}/api/email/${gone}/share`, {
      method: 'DELETE',
      headers: owner.headers,
    });
    expect(revoke.status).toBeLessThan(300);
    const pages: string[] = [];
    for (const path of [`/s/${goneSlug}?v=999`, `/s/${goneSlug}`, `/s/${'q'.repeat(24)}?v=999`]) {
      const page = await publicPage(path);
      await page.getByRole('heading', { level: 1, name: 'Email Not Found' }).waitFor();
      expect(await page.title()).toBe('Email Not Found · Proofmail');
      pages.push(await page.locator('body').innerHTML());
    }
    expect(new Set(pages).size).toBe(1);
  });
});

describe('the preview toolbar', () => {
  it('lines up with the heading and the review card on the public page, and stays put on the owner page', async () => {
    const { id } = await seed('Aligned');
    const slug = await share(id);
    for (const width of [1280, 375]) {
      const page = await publicPage(`/s/${slug}`, { viewport: { width, height: 900 }, colorScheme: 'light' });
      const heading = page.getByRole('heading', { level: 1, name: 'Aligned' });
      await heading.waitFor();
      const toolbar = await edges(page.getByRole('toolbar', { name: 'Preview view' }));
      const card = await edges(reviewCard(page));
      expect(toolbar.left, `${width}`).toBe((await edges(heading)).left);
      expect(toolbar.left, `${width}`).toBe(card.left);
      expect(toolbar.right, `${width}`).toBe(card.right);
      await shot(page, `public-toolbar-${width}-light`);
    }
    // The owner's preview (no bleed): its toolbar spans the preview's whole width, as before.
    const owned = await browser.pageWith(server, owner, { viewport: { width: 1280, height: 900 } });
    await owned.goto(`/app/email/${id}`);
    const preview = owned.locator('section[aria-label="Email preview"]');
    const toolbar = owned.getByRole('toolbar', { name: 'Preview view' });
    await toolbar.waitFor();
    expect(await edges(toolbar)).toEqual(await edges(preview));
    await shot(owned, 'owner-toolbar-1280-light');
  });
});

describe('pins without a mouse', () => {
  it('places a pin with the keyboard, cancels with Escape, and reaches the markers by Tab', async () => {
    const { id } = await seed('Keyboard pins');
    const slug = await share(id);
    const page = await publicPage(`/s/${slug}`);
    const problems = watchProblems(page);
    await scrollToReviews(page);
    await page.getByLabel('Your name').fill('Kim');
    await page.getByRole('radio', { name: 'Comment' }).click();

    // Escape leaves pin mode and goes back to the button.
    const pinButton = page.getByRole('button', { name: 'Pin to the Email' });
    await pinButton.focus();
    await page.keyboard.press('Enter');
    const cursor = page.getByRole('application', { name: 'Pin position' });
    await cursor.waitFor();
    await expect.poll(() => focused(page)).toMatchObject({ role: 'application', label: 'Pin position' });
    await page.keyboard.press('Escape');
    await expect.poll(() => focused(page)).toMatchObject({ label: 'Pin to the Email' });
    expect(await cursor.count()).toBe(0);
    expect(await page.getByTestId('pin-draft').count()).toBe(0);

    // Enter again: the cursor starts in the middle of the email in view; arrows move it, Enter places it.
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toMatchObject({ role: 'application', label: 'Pin position' });
    const layer = page.getByTestId('pin-layer');
    const box = (await layer.boundingBox())!;
    // In view (once a smooth scroll to the email, when one was needed, has ended): the middle of
    // the viewport's share of the email.
    await expect
      .poll(async () => {
        const at = (await cursor.boundingBox())!;
        return at.y + at.height / 2 > 0 && at.y + at.height / 2 < 900;
      })
      .toBe(true);
    await shot(page, 'public-pin-keyboard-1280-light');
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Enter');
    await page.getByTestId('pin-draft').waitFor();
    await expect.poll(() => focused(page)).toMatchObject({ id: 'review-comment' });
    await page.keyboard.type('Move the logo here.');
    await page.getByRole('button', { name: 'Send Review' }).click();
    await expectToast(page, 'Comment saved');
    const pin = await server.db
      .selectFrom('email_reviews')
      .select(['pin_x', 'pin_y', 'pin_width'])
      .where('thread_id', '=', id)
      .executeTakeFirstOrThrow();
    // Four steps of 10 px right of the middle.
    expect(pin.pin_x!).toBeCloseTo(0.5 + 40 / box.width, 2);
    expect(pin.pin_width).toBe(800);

    // The marker is a labelled control; activating it goes to the review it belongs to.
    const marker = page.getByRole('button', { name: 'Pin 1: Kim' });
    await marker.waitFor();
    expect(await page.getByTestId('pin-marker').count()).toBe(1);
    await marker.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => focused(page)).toMatchObject({ testid: 'review' });
    await shot(page, 'public-pin-review-focused-1280-light');
    expect(problems.all()).toEqual([]);

    // The owner's preview has the same markers.
    const owned = await browser.pageWith(server, owner, {});
    await owned.goto(`/app/email/${id}`);
    const ownerMarker = owned.getByRole('button', { name: 'Pin 1: Kim' });
    await ownerMarker.click();
    await expect.poll(() => focused(owned)).toMatchObject({ testid: 'review' });
    await ownerMarker.hover();
    await shot(owned, 'owner-pin-tooltip-1280-light');
  });
});

describe('screens', () => {
  it('the new states at 375 and 1280 px, light and dark: nothing wider than the screen', async () => {
    const { id } = await seed('Screens');
    const slug = await share(id);
    await nextVersion(id, 2, 'Screens v2');
    await postReview(slug, {
      name: 'Dana from Acme',
      decision: 'changes_requested',
      comment: 'Bigger logo, please.',
      version: 1,
      pin: { x: 0.1, y: 0.05, width: 800 },
    });
    for (const width of [375, 1280]) {
      for (const colorScheme of ['light', 'dark'] as const) {
        const view = { viewport: { width, height: 800 }, colorScheme };
        const name = `${width}-${colorScheme}`;
        // An older version, its pin, the missing decision, and the keyboard cursor.
        const page = await publicPage(`/s/${slug}?v=1`, view);
        const problems = watchProblems(page);
        await page.getByTestId('newer-version').first().waitFor();
        const marker = page.getByRole('button', { name: 'Pin 1: Dana from Acme' });
        await marker.focus();
        await shot(page, `screens-older-pin-focus-${name}`);
        await scrollToReviews(page);
        await page.getByLabel('Your name').fill('Kim');
        await page.getByRole('button', { name: 'Send Review' }).click();
        await page.getByText('Choose Approve, Request Changes or Comment', { exact: true }).waitFor();
        await shot(reviewCard(page), `screens-decision-missing-${name}`);
        // What a reviewer of an older round is told once the review is in.
        await page.getByRole('radio', { name: 'Comment' }).click();
        await page.getByLabel('Comment', { exact: true }).fill(`Seen at ${name}.`);
        await page.getByRole('button', { name: 'Send Review' }).click();
        await expectToast(
          page,
          'Comment saved',
          'Thank you, Kim. The sender will see it with the email. A newer version, version 2, is now available.',
        );
        await shot(page.getByRole('region', { name: 'Notifications' }), `screens-review-saved-${name}`);
        await page.getByRole('button', { name: 'Pin to the Email' }).click();
        await page.getByRole('application', { name: 'Pin position' }).waitFor();
        await page.keyboard.press('ArrowLeft');
        await shot(page.locator('section[aria-label="Email preview"]'), `screens-pin-cursor-${name}`);
        expect(await pageWidth(page), name).toBeLessThanOrEqual(width);
        expect(problems.all()).toEqual([]);

        const missing = await publicPage(`/s/${slug}?v=7`, view);
        await missing.getByRole('heading', { level: 1, name: 'Version Not Available' }).waitFor();
        expect(await pageWidth(missing), name).toBeLessThanOrEqual(width);
        await shot(missing, `screens-version-missing-${name}`);
      }
    }
  });
});
