import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { createUser } from '../support/users.ts';

const browser = setupBrowser();
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe('public pages for a signed-in visitor', () => {
  it('offers the way back into the app instead of Sign In, and / goes straight to /app/send', async () => {
    const u = await createUser(server.db);
    const page = await browser.signedInPage(server, u);
    await page.goto('/plan');
    const header = page.getByRole('banner');
    await header.getByRole('link', { name: 'Open Proofmail' }).waitFor();
    expect(await header.getByRole('link', { name: 'Sign In', exact: true }).count()).toBe(0);
    await page.goto('/');
    await page.waitForURL('**/app/send');
  });
});
