import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PreviewEmailRequest, PreviewEmailResponse } from '../../src/shared/contract/email.ts';
import { STARTER_TEMPLATES } from '../../src/shared/starter-templates/starter-templates.ts';
import { startMailDelivery, type MailDelivery } from '../../src/server/mail/mail-delivery.ts';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { SmtpSink } from '../support/smtp-sink.ts';
import { createUser } from '../support/users.ts';

/*
 * MJML and merge tags in the composer: a starter template in MJML, its sample data edited, the
 * preview following, problems marked at their line, the send delivering the filled result, and the
 * detail page showing the MJML as written.
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
  // Start the transform processes before the page needs them (a cold start on a busy machine).
  const warm = await createUser(server.db);
  const res = await fetch(`${server.baseUrl}/api/email/preview`, {
    method: 'POST',
    headers: { ...warm.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ html: '<mjml><mj-body></mj-body></mjml>', format: 'mjml' }),
  });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await delivery?.stop({ deadlineMs: 2_000 });
  await server?.close();
  await sink?.stop();
});

/** The answer to the next preview request whose body passes `match`. */
function previewAnswer(page: Page, match: (body: PreviewEmailRequest) => boolean, status = 200) {
  return page
    .waitForResponse(
      (r) =>
        r.url().endsWith('/api/email/preview') &&
        r.status() === status &&
        match(JSON.parse(r.request().postData() ?? '{}') as PreviewEmailRequest),
    )
    .then((r) => r.json() as Promise<PreviewEmailResponse>);
}

const frameHtml = (page: Page) =>
  page
    .locator('iframe[data-testid="email-frame"]')
    .evaluate((f: HTMLIFrameElement) => f.contentDocument?.documentElement.outerHTML ?? '');

describe('MJML and merge tags in the composer', () => {
  it('starts from an MJML template, fills its sample data, previews, sends, and shows the MJML after', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const page = await browser.signedInPage(server, u, { viewport: { width: 1280, height: 900 } });
    const problems = watchProblems(page, {
      ignore: [
        /POST http:\/\/[^ ]*\/api\/email\/preview 422$/,
        /status of 422 \(Unprocessable Entity\) \(http:\/\/[^)]*\/api\/email\/preview\)/,
      ],
    });
    await page.goto('/app/send');
    await page.locator('.cm-content').waitFor();

    // Switch to MJML: the editor is named for it.
    await page.getByRole('radio', { name: 'MJML' }).click();
    await page.getByRole('textbox', { name: 'MJML Content' }).waitFor();

    // An MJML mistake: marked at its line in the editor and listed under it, with a way to it.
    const failed = previewAnswer(page, (b) => b.html.includes('colour='), 422);
    await page.locator('.cm-content').click();
    await page.keyboard.insertText(
      '<mjml>\n<mj-body><mj-section><mj-column><mj-text colour="red">x</mj-text></mj-column></mj-section></mj-body>\n</mjml>',
    );
    await failed;
    const listed = page.getByTestId('source-problems');
    // MJML's own text, written as a sentence (docs/copy-style.md).
    await listed.getByText('Attribute colour is illegal.', { exact: true }).waitFor();
    await page.locator('.cm-lintRange-error').first().waitFor();
    await listed.getByRole('button', { name: 'Go to Line 2' }).click();
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Delete');
    await expect.poll(() => listed.count()).toBe(0);

    // Start from the MJML receipt: format, syntax, sample data and subject come with it.
    const first = previewAnswer(page, (b) => b.format === 'mjml' && b.template?.syntax === 'handlebars');
    await page.getByRole('button', { name: 'Start from Template' }).click();
    await page.getByRole('menuitem', { name: 'Receipt (MJML)' }).click();
    expect(await page.getByLabel('Merge tags').inputValue()).toBe('handlebars');
    expect(await page.getByLabel('Subject').inputValue()).toBe('Your receipt from Paper & Pen');
    const data = page.getByRole('textbox', { name: 'Sample data' });
    expect(JSON.parse(await data.inputValue())).toMatchObject({ customer: { name: 'Ada Lovelace' } });
    const receipt = await first;
    expect(receipt.html).toContain('Thank you, Ada Lovelace');
    expect(receipt.notes.unfilled).toEqual([]);
    await expect.poll(() => frameHtml(page), { timeout: 15_000 }).toContain('Thank you, Ada Lovelace');

    // Bad JSON: said inline, and no preview is asked with it.
    let sentBadJson = false;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/email/preview') && (r.postData() ?? '').includes('Grace'))
        sentBadJson = true;
    });
    const json = JSON.parse(await data.inputValue()) as { customer: { name: string } };
    await data.fill(JSON.stringify(json).replace('Ada Lovelace', 'Grace').slice(0, -1));
    await page
      .getByTestId('sample-data-error')
      .getByText(/^Sample data is not valid JSON: /)
      .waitFor();
    await page.waitForTimeout(800);
    expect(sentBadJson).toBe(false);

    // Fixed, with a value changed and one removed: the preview follows and names the unfilled tag.
    const { receipt_url: _dropped, ...rest } = json as Record<string, unknown>;
    const edited = { ...rest, customer: { name: 'Grace Hopper' } };
    const second = previewAnswer(page, (b) =>
      JSON.stringify(b.template?.data ?? {}).includes('Grace Hopper'),
    );
    await data.fill(JSON.stringify(edited, null, 2));
    const updated = await second;
    expect(updated.html).toContain('Thank you, Grace Hopper');
    expect(updated.notes.unfilled).toEqual(['receipt_url']);
    await expect.poll(() => frameHtml(page), { timeout: 15_000 }).toContain('Grace Hopper');
    // The checklist's content check names it (docs/architecture.md, pre-send checklist).
    await page.getByRole('tab', { name: /Checks/ }).click();
    await page
      .locator('[data-check="content"]')
      .getByText('A merge tag has no value in the sample data, so it is sent blank: receipt_url', {
        exact: false,
      })
      .waitFor({ timeout: 15_000 });

    // Send: the message delivered is the preview, and the detail page shows the MJML as written.
    await page.getByLabel('To', { exact: true }).fill('client@example.com');
    await page.getByRole('button', { name: 'Send Test Email' }).click();
    // An unfilled tag is an error of the checklist: sending asks once.
    await page
      .getByRole('dialog', { name: 'Send With Errors?' })
      .getByRole('button', { name: 'Send Anyway' })
      .click();
    await page.getByText('Email sent successfully!', { exact: true }).first().waitFor();
    // The form clears, its options too (docs/spec.md, Sending): the next source is not compiled as
    // this one's MJML with its sample data.
    const format = page.getByRole('radiogroup', { name: 'Source format' });
    expect(await format.getByRole('radio', { name: 'HTML', exact: true }).getAttribute('aria-checked')).toBe(
      'true',
    );
    expect(await page.getByLabel('Merge tags').inputValue()).toBe('none');
    await sink.waitForCount(1);
    const parsed = await sink.parse(sink.messages.at(-1)!);
    expect(parsed.html).toContain('Thank you, Grace Hopper');
    expect(parsed.html).toContain('<!doctype html>');
    expect(parsed.subject).toBe('Your receipt from Paper & Pen');

    await page.waitForURL(/\/app\/email\/[0-9a-f-]+$/, { timeout: 15_000 });
    await page.getByRole('tab', { name: 'HTML Source' }).click();
    await page.getByRole('radio', { name: 'Your MJML' }).click();
    const written = await page.getByRole('textbox', { name: 'HTML Source' }).inputValue();
    expect(written).toBe(STARTER_TEMPLATES.find((t) => t.id === 'receipt-mjml')!.source);
    expect(problems.all()).toEqual([]);
  });
});
