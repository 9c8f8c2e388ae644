import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setupBrowser, watchClipboard, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { expectToast } from '../support/toasts.ts';
import { createUser } from '../support/users.ts';

/**
 * API Keys on /app/account (docs/decisions/0073-personal-api-keys.md): create a key, see it once
 * and copy it, see it listed without the key, revoke it after a confirmation.
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe('the API Keys card', () => {
  it('creates a key shown once with Copy, lists it without the key, and revokes it after a confirm', async () => {
    const owner = await createUser(server.db, { plan: 'pro' });
    const page = await browser.signedInPage(server, owner, {
      permissions: ['clipboard-write'],
    });
    const clipboard = await watchClipboard(page);
    const problems = watchProblems(page);
    await page.goto('/app/account');
    const card = page.getByRole('region', { name: 'API Keys' });
    await card.getByText('No API keys yet.').waitFor();

    // A name is required, with the contract's message.
    await card.getByRole('button', { name: 'Create Key' }).click();
    await card.getByText('Enter a name for the key').waitFor();

    await card.getByRole('textbox', { name: 'Key name' }).fill('GitHub Actions');
    await card.getByRole('button', { name: 'Create Key' }).click();
    const field = card.getByRole('textbox', { name: 'Your new API key' });
    await field.waitFor();
    const key = await field.inputValue();
    expect(key).toMatch(/^pm_[A-Za-z0-9_-]{43}$/);
    expect(await field.getAttribute('readonly')).not.toBeNull();
    expect(await card.innerText()).toContain('It will not be shown again');

    await card.getByRole('button', { name: 'Copy', exact: true }).click();
    await card.getByRole('button', { name: 'Copied!' }).waitFor();
    await expectToast(page, 'Key copied to clipboard');
    expect(await clipboard.lastCopied()).toBe(key);

    // The key works as a bearer token on the API.
    const me = await fetch(`${server.baseUrl}/api/user/me`, { headers: { authorization: `Bearer ${key}` } });
    expect(me.status).toBe(200);

    await card.getByRole('button', { name: 'Done' }).click();
    await field.waitFor({ state: 'detached' });
    const row = card.getByRole('listitem');
    await row.waitFor();
    const text = await row.innerText();
    expect(text).toContain('GitHub Actions');
    expect(text).toContain(`${key.slice(0, 9)}…`);
    expect(text).toContain('never used');
    expect(text).not.toContain(key);

    // After a reload the list shows when it was last used; the key itself is gone for good.
    await page.reload();
    await card
      .getByRole('listitem')
      .getByText(/last used just now/)
      .waitFor();
    expect(await page.content()).not.toContain(key);

    await card.getByRole('button', { name: 'Revoke GitHub Actions' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke API Key?' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain(
      'Scripts and CI jobs using “GitHub Actions” stop working at once.',
    );
    await dialog.getByRole('button', { name: 'Revoke Key' }).click();
    await expectToast(page, 'API key revoked', '“GitHub Actions” no longer works.');
    await card.getByText('No API keys yet.').waitFor();
    const after = await fetch(`${server.baseUrl}/api/user/me`, {
      headers: { authorization: `Bearer ${key}` },
    });
    expect(after.status).toBe(401);
    expect(problems.all()).toEqual([]);
  });

  it('Cancel in the confirm keeps the key', async () => {
    const owner = await createUser(server.db);
    const res = await fetch(`${server.baseUrl}/api/keys`, {
      method: 'POST',
      headers: { ...owner.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Deploy' }),
    });
    expect(res.status).toBe(200);
    const page = await browser.signedInPage(server, owner);
    await page.goto('/app/account');
    const card = page.getByRole('region', { name: 'API Keys' });
    await card.getByRole('button', { name: 'Revoke Deploy' }).click();
    const dialog = page.getByRole('dialog', { name: 'Revoke API Key?' });
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await card.getByRole('listitem').count()).toBe(1);
  });

  it('an account that has not verified its address is told to, and cannot create a key', async () => {
    const owner = await createUser(server.db, { verified: false });
    const page = await browser.signedInPage(server, owner);
    await page.goto('/app/account');
    const card = page.getByRole('region', { name: 'API Keys' });
    await card.getByText('Verify your email address before creating API keys.').waitFor();
    expect(await card.getByRole('button', { name: 'Create Key' }).isDisabled()).toBe(true);
    expect(await card.getByRole('textbox', { name: 'Key name' }).isDisabled()).toBe(true);
  });
});
