import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { expectToast } from '../support/toasts.ts';
import { createUser } from '../support/users.ts';

/**
 * The account page's "Public links" card: links shared on Pro keep working on Free until the
 * owner stops them, and the owner sees and stops them from any plan
 * (docs/decisions/0036-public-links-after-pro.md).
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

describe('the public links card', () => {
  it('after a drop to Free says the links still work, and "Stop sharing all" stops them', async () => {
    const owner = await createUser(server.db, { plan: 'pro' });
    const slugs: string[] = [];
    for (const subject of ['Spring sale', 'Newsletter']) {
      const { id } = await insertEmail(server.db, {
        userId: owner.user.id,
        to: 'client@example.com',
        subject,
        html: `<p>${subject}</p>`,
        inlineCss: false,
        createdAt: new Date(),
      });
      const shared = await fetch(`${server.baseUrl}/api/email/${id}/share`, {
        method: 'POST',
        headers: owner.headers,
      });
      expect(shared.status).toBe(200);
      slugs.push(
        new URL(((await shared.json()) as { publicUrl: string }).publicUrl).pathname.split('/').pop()!,
      );
    }
    const publicStatus = (slug: string) =>
      fetch(`${server.baseUrl}/api/email/public/${slug}`).then((res) => res.status);
    await server.db
      .updateTable('users')
      .set({ plan: 'free', subscription_status: 'canceled' })
      .where('id', '=', owner.user.id)
      .execute();
    expect(await Promise.all(slugs.map(publicStatus))).toEqual([200, 200]);

    const page = await browser.sharedPage(server, owner);
    const problems = watchProblems(page);
    await page.goto('/app/account');
    const card = page.getByRole('region', { name: 'Public Links' });
    await card.waitFor();
    expect(await card.innerText()).toContain(
      '2 emails are still shared with a public link from your Pro plan. The links keep working until you stop sharing them; sharing another email needs Pro.',
    );

    await card.getByRole('button', { name: 'Stop Sharing All' }).click();
    const dialog = page.getByRole('dialog', { name: 'Stop Sharing Every Email?' });
    await dialog.waitFor();
    expect(await dialog.innerText()).toContain('Every public link stops working at once (2 links).');
    await dialog.getByRole('button', { name: 'Stop Sharing All' }).click();
    await expectToast(page, 'Sharing stopped', '2 links no longer work.');
    await card.waitFor({ state: 'detached' });
    expect(await Promise.all(slugs.map(publicStatus))).toEqual([404, 404]);
    expect(problems.all()).toEqual([]);
  });

  it('is not shown while nothing is shared', async () => {
    const owner = await createUser(server.db, { plan: 'pro' });
    const page = await browser.sharedPage(server, owner);
    const problems = watchProblems(page);
    await page.goto('/app/account');
    await page.getByRole('region', { name: 'Change email' }).waitFor();
    expect(await page.getByRole('region', { name: 'Public Links' }).count()).toBe(0);
    expect(problems.all()).toEqual([]);
  });
});
