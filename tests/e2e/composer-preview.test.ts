import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PreviewEmailResponse } from '../../src/shared/contract/email.ts';
import { startMailDelivery, type MailDelivery } from '../../src/server/mail/mail-delivery.ts';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { poll } from '../support/poll.ts';
import { shot } from '../support/screenshots.ts';
import { SmtpSink } from '../support/smtp-sink.ts';
import { createUser, type TestUser } from '../support/users.ts';

/*
 * The composer's live preview (docs/architecture.md §9): what it shows is what a send of the same
 * form delivers, read back from a real SMTP server on loopback.
 */

const browser = setupBrowser();
let server: TestServer;
let sink: SmtpSink;
let delivery: MailDelivery;

beforeAll(async () => {
  sink = await SmtpSink.start();
  server = await startTestServer({ env: { SMTP_URL: sink.url, FREE_SENDS_PER_MINUTE: '100' } });
  delivery = await startMailDelivery({
    config: server.config,
    db: server.db,
    connectionString: server.databaseUrl,
    concurrency: 2,
    worker: { pollIntervalMs: 200 },
  });
  // The first prepare starts the transform processes (docs/architecture.md §9); start them now,
  // so the tests' waits are for the page, not for a cold start on a busy machine.
  const warm = await createUser(server.db, { plan: 'pro' });
  const res = await fetch(`${server.baseUrl}/api/email/preview`, {
    method: 'POST',
    headers: { ...warm.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ html: '<style>p{color:red}</style><p>Warm</p>', inlineCss: true }),
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await delivery?.stop({ deadlineMs: 2_000 });
  await server?.close();
  await sink?.stop();
});

const EMAIL = `<!DOCTYPE html><html><head><style>
  p.lead { color: #1d4ed8; font-size: 18px }
  @media (max-width: 600px) { p.lead { font-size: 16px !important } }
  #outlook a { padding: 0 }
</style></head><body><h1 id="title">Spring sale</h1><p class="lead">Everything is 20% off.</p>
<p><a href="https://shop.example/sale">Shop now</a></p></body></html>`;

async function openSend(u: TestUser, width = 1280): Promise<Page> {
  const page = await browser.signedInPage(server, u, { viewport: { width, height: 900 } });
  // Counts preview requests the app cancels (an AbortError rejects the app's fetch).
  await page.addInitScript(() => {
    const w = window as { previewAborts?: number };
    const original = window.fetch.bind(window);
    w.previewAborts = 0;
    window.fetch = (input, init) =>
      original(input, init).catch((err: unknown) => {
        if ((err as Error).name === 'AbortError' && String(input).endsWith('/api/email/preview'))
          w.previewAborts = (w.previewAborts ?? 0) + 1;
        throw err;
      });
  });
  await page.goto('/app/send');
  await page.getByRole('heading', { level: 1, name: 'Send Test Email' }).waitFor();
  await page.locator('.cm-content').waitFor();
  return page;
}

async function typeHtml(page: Page, html: string) {
  await page.locator('.cm-content').click();
  await page.keyboard.insertText(html);
}

/** The HTML document the preview frame shows, as text (the email's own markup is inside it). */
const frameHtml = (page: Page) =>
  page
    .locator('iframe[data-testid="email-frame"]')
    .evaluate((f: HTMLIFrameElement) => f.contentDocument?.documentElement.outerHTML ?? '');

/** Waits for the answer to the preview request made once the form reads `html`. */
function previewAnswer(page: Page, html: string): Promise<PreviewEmailResponse> {
  return page
    .waitForResponse(
      (r) =>
        r.url().endsWith('/api/email/preview') &&
        r.status() === 200 &&
        (JSON.parse(r.request().postData() ?? '{}') as { html?: string }).html === html,
    )
    .then((r) => r.json() as Promise<PreviewEmailResponse>);
}

describe('the live preview in the composer', () => {
  it('shows exactly what a send delivers: HTML, plain text, subject and size', async () => {
    const u = await createUser(server.db, { plan: 'pro', email: 'designer@studio.example' });
    const page = await openSend(u);
    const problems = watchProblems(page);
    await page.getByText('The preview of your email appears here as you type.').waitFor();

    await page.getByLabel('To', { exact: true }).fill('client@example.com');
    await page.getByLabel('Subject').fill('Spring sale, proof 1');
    await page.getByRole('switch', { name: 'Inline CSS' }).click();
    const answered = previewAnswer(page, EMAIL);
    await typeHtml(page, EMAIL);
    const preview = await answered;
    // Inlined, with what could not be inlined kept in a <style> block, and said so.
    expect(preview.html).toMatch(/<p class="lead" style="[^"]*color: ?#1d4ed8/);
    expect(preview.notes).toEqual({ inlined: true, keptInStyle: 2 });
    await expect.poll(() => frameHtml(page)).toContain(preview.html.slice(preview.html.indexOf('<h1')));
    const sizes = page.getByTestId('preview-sizes');
    await sizes
      .getByText(/Inline CSS: [\d.]+ (bytes|KB) → [\d.]+ (bytes|KB) · 2 rules kept in a <style> block/)
      .waitFor();
    expect(await page.getByTestId('preview-subject').innerText()).toBe('Spring sale, proof 1');

    // The plain-text part: generated, then the user's own.
    await page.getByRole('tab', { name: 'Plain Text' }).click();
    const plain = page.getByRole('textbox', { name: 'Plain text' });
    expect(await plain.inputValue()).toBe(preview.text);
    expect(preview.text).toContain('SPRING SALE');
    const own = 'Spring sale: everything is 20% off.\n\nShop now: https://shop.example/sale';
    const withText = page.waitForResponse(
      (r) =>
        r.url().endsWith('/api/email/preview') &&
        r.status() === 200 &&
        (JSON.parse(r.request().postData() ?? '{}') as { text?: string }).text === own,
    );
    await plain.fill(own);
    const previewed = (await (await withText).json()) as PreviewEmailResponse;
    expect(previewed.text).toBe(own);
    await page.getByRole('button', { name: 'Reset to Generated' }).waitFor();

    await page.getByRole('button', { name: 'Send Test Email' }).click();
    await page.getByText('Email sent successfully!', { exact: true }).first().waitFor();
    await sink.waitForCount(1);
    const received = sink.messages.at(-1)!;
    const parsed = await sink.parse(received);
    expect(parsed.html).toBe(previewed.html);
    expect(parsed.text).toBe(previewed.text);
    expect(parsed.subject).toBe(previewed.subject);
    expect(received.raw.length).toBe(previewed.bytes.message);
    expect(problems.all()).toEqual([]);
  });

  it('follows typing: keeps the last preview while updating, drops stale answers, shows errors inline', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await openSend(u, 375);
    const problems = watchProblems(page, {
      // The 422 the test asks for, as a failed request and as Chromium's console line for it.
      ignore: [
        /POST http:\/\/[^ ]*\/api\/email\/preview 422$/,
        /status of 422 \(Unprocessable Entity\) \(http:\/\/[^)]*\/api\/email\/preview\)/,
      ],
    });
    // The answer for the second draft is slow, so typing overtakes it.
    let staleSeen!: () => void;
    const stale = new Promise<void>((resolve) => (staleSeen = resolve));
    let staleDone!: () => void;
    const staleAnswered = new Promise<void>((resolve) => (staleDone = resolve));
    await page.route('**/api/email/preview', async (route) => {
      const html = (JSON.parse(route.request().postData() ?? '{}') as { html?: string }).html ?? '';
      if (html.includes('Second line') && !html.includes('Third line')) {
        staleSeen();
        await new Promise((r) => setTimeout(r, 4000));
        await route.continue().catch(() => undefined); // the page may have given up on it
        staleDone();
        return;
      }
      await route.continue().catch(() => undefined);
    });

    await typeHtml(page, '<h1 id="one">First draft</h1>');
    await expect.poll(() => frameHtml(page), { timeout: 15_000 }).toContain('First draft');
    // At 375 px the preview's tabs stay inside their column (they ran 16 px into the margin).
    const tabs = await page
      .locator('section[aria-labelledby="composer-preview-title"]')
      .evaluate((section) => {
        const list = section.querySelector('[role="tablist"]')!.getBoundingClientRect();
        return { list: list.right, column: section.getBoundingClientRect().right };
      });
    expect(tabs.list).toBeLessThanOrEqual(tabs.column + 0.5);

    // A change: "Updating…" while the old preview stays on show.
    await page.keyboard.insertText('<p id="two">Second line</p>');
    await stale;
    await page.getByRole('status').filter({ hasText: 'Updating…' }).waitFor();
    expect(await frameHtml(page)).toContain('First draft');
    // More typing while that answer is on its way: the stale request is cancelled, the new one shown.
    await page.keyboard.insertText('<p id="three">Third line</p>');
    await expect.poll(() => frameHtml(page), { timeout: 15_000 }).toContain('Third line');
    await expect
      .poll(() => page.evaluate(() => (window as { previewAborts?: number }).previewAborts ?? 0))
      .toBeGreaterThan(0);
    // And when the stale answer would have arrived, it does not replace the newer preview.
    await staleAnswered;
    await page.waitForTimeout(300);
    expect(await frameHtml(page)).toContain('Third line');

    // A document the server cannot process: its message inline, the last good preview kept.
    await page.keyboard.insertText('<div>'.repeat(600));
    const error = page.getByTestId('preview-error');
    await error.getByText(/nests elements 60\d levels deep; the limit is 512/).waitFor({ timeout: 15_000 });
    expect(await frameHtml(page)).toContain('Third line');
    expect(problems.all()).toEqual([]);
  });
});

describe('the live preview past the per-minute cap', () => {
  it('says it waits, counts the seconds down, and asks again by itself when Retry-After says', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await openSend(u);
    const problems = watchProblems(page, {
      // The 429 the test answers, as a failed request and as Chromium's console line for it.
      ignore: [
        /POST http:\/\/[^ ]*\/api\/email\/preview 429$/,
        /status of 429 \(Too Many Requests\) \(http:\/\/[^)]*\/api\/email\/preview\)/,
      ],
    });
    // The server's answer past the cap (tests/api/email-preview.test.ts), for the first request
    // only, with a short wait; every later request reaches the server.
    const asked: number[] = [];
    await page.route('**/api/email/preview', async (route) => {
      asked.push(Date.now());
      if (asked.length > 1) return route.continue();
      await route.fulfill({
        status: 429,
        headers: { 'content-type': 'application/json', 'retry-after': '3' },
        body: JSON.stringify({ error: 'Too many previews: at most 120 a minute. Try again in 3 seconds.' }),
      });
    });
    const html = '<p>Waited for</p>';
    const answer = previewAnswer(page, html);
    await typeHtml(page, html);
    const wait = page.getByTestId('preview-wait');
    await wait.getByText('Many previews this minute: this one follows by itself').waitFor();
    const seconds = async () => Number(/in (\d+) s\.$/.exec(await wait.innerText())?.[1]);
    const first = await seconds();
    expect(first).toBeGreaterThanOrEqual(1);
    expect(first).toBeLessThanOrEqual(3);
    await shot(wait, 'composer-preview-wait');
    if (first > 1) await poll(async () => (await seconds()) < first);
    // No error while it waits: nothing failed for good.
    expect(await page.getByTestId('preview-error').count()).toBe(0);
    await answer;
    expect(asked).toHaveLength(2);
    expect(asked[1]! - asked[0]!).toBeGreaterThanOrEqual(2_900);
    await poll(async () => (await frameHtml(page)).includes('Waited for'));
    await wait.waitFor({ state: 'detached' });
    expect(problems.all()).toEqual([]);
  });
});

describe('the detail page shows what was written and what was sent', () => {
  it('HTML as sent and as written, the plain-text part, the raw message, and downloads byte for byte', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const own = 'Spring sale: everything is 20% off.\n\nShop now: https://shop.example/sale';
    const before = sink.messages.length;
    const res = await fetch(`${server.baseUrl}/api/email/send`, {
      method: 'POST',
      headers: { ...u.headers, 'content-type': 'application/json' },
      body: JSON.stringify({
        to: 'client@example.com, boss@example.com',
        subject: 'Spring sale, proof 2',
        html: EMAIL,
        inlineCss: true,
        text: own,
      }),
    });
    expect(res.status).toBe(200);
    const { id } = (await res.json()) as { id: string };
    // One message per recipient, each with only its own address in To:.
    await sink.waitForCount(before + 2);
    const to = (address: string) => sink.messages.slice(before).find((m) => m.envelopeTo[0] === address)!;
    const received = to('client@example.com');
    const delivered = await sink.parse(received);

    const page = await browser.pageWith(server, u, { viewport: { width: 1280, height: 900 } });
    const problems = watchProblems(page);
    await page.goto(`/app/email/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Spring sale, proof 2' }).waitFor();

    // HTML Source: as sent (inlined) by default, the source as written on the switch.
    await page.getByRole('tab', { name: 'HTML Source' }).click();
    const source = page.getByRole('textbox', { name: 'HTML Source' });
    expect(await source.inputValue()).toBe(delivered.html);
    await page.getByRole('radio', { name: 'Your Source' }).click();
    expect(await source.inputValue()).toBe(EMAIL);
    // Its size as people read it (once "6 lines · 0.3 KB"-style rounding hid it).
    expect(await page.getByTestId('source-stats').innerText()).toBe(
      `6 lines · ${Buffer.byteLength(EMAIL)} bytes`,
    );
    await page.getByRole('radio', { name: 'As Sent' }).click();
    expect(await source.inputValue()).toBe(delivered.html);
    const html = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download .html' }).click();
    const htmlFile = await html;
    expect(htmlFile.suggestedFilename()).toBe(`email-${id}.html`);
    const htmlPath = path.join(os.tmpdir(), `proofmail-${id}.html`);
    await htmlFile.saveAs(htmlPath);
    expect(await fs.readFile(htmlPath, 'utf8')).toBe(delivered.html);

    // Plain text: the user's own part, as delivered.
    await page.getByRole('tab', { name: 'Plain Text' }).click();
    expect(await page.getByRole('textbox', { name: 'Plain text' }).inputValue()).toBe(delivered.text);
    await page.getByText('Written by you').waitFor();

    // Raw: the shared headers, and the message exactly as the SMTP server received it.
    await page.getByRole('tab', { name: 'Raw' }).click();
    const headers = page.getByTestId('raw-headers');
    await headers.getByText('Subject:').waitFor();
    expect(await headers.innerText()).toContain('Spring sale, proof 2');
    const mime = page.getByRole('textbox', { name: 'MIME source' });
    await mime.waitFor();
    // A text area reads line ends as LF; the download below is compared byte for byte.
    expect(await mime.inputValue()).toBe(received.raw.toString('utf8').replace(/\r\n/g, '\n'));
    const eml = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download .eml' }).click();
    const emlFile = await eml;
    expect(emlFile.suggestedFilename()).toBe(`email-${id}-client@example.com.eml`);
    const emlPath = path.join(os.tmpdir(), `proofmail-${id}.eml`);
    await emlFile.saveAs(emlPath);
    expect(Buffer.compare(await fs.readFile(emlPath), received.raw)).toBe(0);

    // The other recipient's message: its own To and Message-ID, the same body.
    await page.getByLabel('Message to').selectOption({ label: 'boss@example.com' });
    await poll(async () => (await mime.inputValue()).includes('To: boss@example.com'));
    const boss = to('boss@example.com');
    expect(await mime.inputValue()).toBe(boss.raw.toString('utf8').replace(/\r\n/g, '\n'));
    expect(await mime.inputValue()).not.toContain('client@example.com');
    await Promise.all([fs.rm(htmlPath), fs.rm(emlPath)]);
    expect(problems.all()).toEqual([]);
  });
});
