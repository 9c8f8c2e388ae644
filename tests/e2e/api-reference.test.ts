import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { createUser } from '../support/users.ts';

/**
 * /docs/api renders GET /api/openapi.json (src/server/http/openapi.ts): signed out and signed in,
 * each operation with its method, path, who may call it, its body's fields and its answers.
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe('the API Reference page', () => {
  it('shows POST /api/email/send with its body fields and the API-key note, and follows an anchor', async () => {
    const page = await browser.sharedPage(server);
    const problems = watchProblems(page);
    // Loading the page at an anchor scrolls to that operation once the document has rendered.
    await page.goto('/docs/api#post-api-email-send');
    const target = page.locator('section#post-api-email-send');
    await target.waitFor();
    await expect.poll(async () => (await target.boundingBox())!.y).toBeLessThan(200);

    // The page without an anchor: a new document (only a change of anchor stays in the document).
    await page.goto('/docs/api');
    await page.getByRole('heading', { level: 1, name: 'API Reference' }).waitFor();
    await page.getByRole('link', { name: 'Account → API Keys' }).waitFor();

    const send = page.locator('section#post-api-email-send');
    await send.getByRole('heading', { name: 'POST /api/email/send' }).waitFor();
    expect(await send.getAttribute('data-operation')).toBe('POST /api/email/send');
    await expect(send.locator('[data-access="apiKey"]').innerText()).resolves.toContain('API key accepted');

    // The request body's fields, from the contract, with type, required and enum values.
    const body = send.locator('[data-request-body]');
    for (const field of ['to', 'html', 'format', 'template']) {
      await body.locator(`[data-property="${field}"]`).first().waitFor();
    }
    const to = await body.locator('[data-property="to"]').first().innerText();
    expect(to).toMatch(/string/);
    expect(to).toMatch(/required/);
    expect(to).toMatch(/at most 2,000 characters/);
    const format = await body.locator('[data-property="format"]').innerText();
    expect(format).toContain('"html"');
    expect(format).toContain('"mjml"');
    // Nested: the template's syntax, with its own enum.
    const syntax = await body.locator('[data-property="template"] [data-property="syntax"]').innerText();
    expect(syntax).toContain('"handlebars"');

    // Its answers: 200 open with the id, the error answer listed.
    await send.locator('[data-response="200"] [data-property="id"]').waitFor();
    await send.locator('[data-response="default"]').waitFor();

    // A session-only route says a key is refused there.
    await page.locator('section#post-api-keys [data-access="session"]').waitFor();

    // The table of contents links to the operation's anchor, and the address keeps it.
    const toc = page.getByRole('navigation', { name: 'Endpoints' });
    await toc.locator('a[href="#get-api-email-id"]').click();
    await page.waitForURL(/#get-api-email-id$/);
    const box = await page.locator('section#get-api-email-id').boundingBox();
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.y).toBeLessThan(200);

    expect(problems.all()).toEqual([]);
  });

  it('works signed in, and the footer and the API Keys card link to it', async () => {
    const owner = await createUser(server.db, { plan: 'pro' });
    const page = await browser.sharedPage(server, owner);
    const problems = watchProblems(page);
    await page.goto('/app/account');
    const card = page.getByRole('region', { name: 'API Keys' });
    await card.getByRole('link', { name: 'API Reference' }).click();
    await page.waitForURL(/\/docs\/api$/);
    await page.locator('section#post-api-email-send').waitFor();
    await page.getByRole('contentinfo').getByRole('link', { name: 'API Reference' }).waitFor();
    expect(problems.all()).toEqual([]);
  });
});
