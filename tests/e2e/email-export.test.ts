import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { enqueueMail } from '../../src/server/mail/outbox.ts';
import { setupBrowser, watchProblems } from '../support/browser.ts';
import { startTestServer, type TestServer } from '../support/e2e-server.ts';
import { shot } from '../support/screenshots.ts';
import { createUser } from '../support/users.ts';
import { tabsCutOffWithoutSign } from '../support/tabs.ts';
import { expectToast } from '../support/toasts.ts';

/**
 * The detail page's Export menu (src/web/features/email-detail/export-menu.tsx): PNG at the width
 * and mode the preview shows, and the .html file with the bytes as sent.
 */

const browser = setupBrowser();
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => server?.close());

/** The browser runs as a server process: a download is saved, then read. */
async function bytesOf(download: { saveAs(file: string): Promise<void> }): Promise<Buffer> {
  const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'export-')), 'file');
  await download.saveAs(file);
  return fs.readFile(file);
}

const HTML =
  '<!DOCTYPE html><html><body style="margin:0"><div style="height:1200px;background:#eef">Export me ✓</div></body></html>';

describe('export menu', () => {
  it('downloads a PNG of the preview’s view and the .html as sent', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const email = await insertEmail(server.db, {
      userId: u.user.id,
      to: 'client@example.com',
      subject: 'Export',
      html: HTML,
      inlineCss: false,
      createdAt: new Date('2026-11-20T10:00:00Z'),
    });
    await enqueueMail(server.db, { priority: 'pro', to: ['client@example.com'], emailId: email.id });
    const page = await browser.signedInPage(server, u, { acceptDownloads: true });
    await page.goto(`/app/email/${email.id}?view=375&mode=dark`);

    await page.getByRole('button', { name: 'Export' }).click();
    await expect
      .poll(() => page.getByTestId('export-note').textContent())
      .toBe('375 px, Dark, as in the preview');
    const [png] = await Promise.all([
      page.waitForEvent('download', { timeout: 30_000 }),
      page.getByRole('menuitem', { name: 'Download PNG' }).click(),
    ]);
    expect(png.suggestedFilename()).toBe(`email-${email.id}-375-dark.png`);
    const image = PNG.sync.read(await bytesOf(png));
    expect([image.width, image.height]).toEqual([375, 1200]);

    await page.getByRole('button', { name: 'Export' }).click();
    const [html] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('menuitem', { name: 'Download .html' }).click(),
    ]);
    expect(html.suggestedFilename()).toBe(`email-${email.id}.html`);
    // The HTML as sent, after the byte order mark that says UTF-8 on disk, where the MIME header
    // does not go (docs/decisions/0121-html-export-says-utf-8.md).
    expect((await bytesOf(html)).toString('utf8')).toBe(`\uFEFF${HTML}`);
    // The HTML Source tab's button saves the same file.
    await page.keyboard.press('Escape');
    await page.getByRole('tab', { name: 'HTML Source' }).click();
    const [fromTab] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download .html' }).click(),
    ]);
    expect((await bytesOf(fromTab)).equals(await bytesOf(html))).toBe(true);

    // Forced dark is the preview's approximation: no image of it.
    await page.goto(`/app/email/${email.id}?mode=forced-dark`);
    await page.getByRole('button', { name: 'Export' }).click();
    await expect
      .poll(() => page.getByTestId('export-note').textContent())
      .toMatch(/^Forced dark is an approximation/);
    await expect
      .poll(() => page.getByRole('menuitem', { name: 'Download PNG' }).getAttribute('aria-disabled'))
      .toBe('true');
    await shot(page, 'export-menu-forced-dark');
  });
  it('says what a PNG left out: an image that did not load, and content wider than the export', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    // The image's address is loopback, which the egress guard refuses in production (by its class,
    // never dialled): the image does not load.
    const wide =
      '<!DOCTYPE html><html><body style="margin:0"><table width="1000"><tr><td>Wide ' +
      '<img src="http://127.0.0.1:9/logo.png" width="100" height="40" alt="Logo"></td></tr></table></body></html>';
    const email = await insertEmail(server.db, {
      userId: u.user.id,
      to: 'client@example.com',
      subject: 'Wide',
      html: wide,
      inlineCss: false,
      createdAt: new Date('2026-11-20T10:00:00Z'),
    });
    await enqueueMail(server.db, { priority: 'pro', to: ['client@example.com'], emailId: email.id });
    const page = await browser.signedInPage(server, u, { acceptDownloads: true });
    await page.goto(`/app/email/${email.id}?view=600&mode=light`);
    await page.getByRole('button', { name: 'Export' }).click();
    await Promise.all([
      page.waitForEvent('download', { timeout: 30_000 }),
      page.getByRole('menuitem', { name: 'Download PNG' }).click(),
    ]);
    await expectToast(
      page,
      'Not everything is in the export',
      '1 image did not load and is missing. The email is 1,000 px wide: the export shows its first 600 px.',
    );
  });

  it('with Images Off, says the export shows the images: the renderer has no Images Off', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const email = await insertEmail(server.db, {
      userId: u.user.id,
      to: 'client@example.com',
      subject: 'Export without images',
      html: HTML,
      inlineCss: false,
      createdAt: new Date('2026-11-20T10:00:00Z'),
    });
    await enqueueMail(server.db, { priority: 'pro', to: ['client@example.com'], emailId: email.id });
    for (const [name, width, colorScheme] of [
      ['1280-light', 1280, 'light'],
      ['1280-dark', 1280, 'dark'],
      ['375-light', 375, 'light'],
      ['375-dark', 375, 'dark'],
    ] as const) {
      const page = await browser.pageWith(server, u, { viewport: { width, height: 800 }, colorScheme });
      const problems = watchProblems(page);
      await page.goto(`/app/email/${email.id}?view=600&images=off`);
      await page.getByRole('button', { name: 'Export' }).click();
      await expect
        .poll(() => page.getByTestId('export-note').textContent())
        .toBe('600 px, Light, with images');
      expect(await page.getByTestId('export-images-note').textContent()).toBe(
        'Images Off applies to the preview only.',
      );
      expect(
        await page.getByRole('menuitem', { name: 'Download PNG' }).getAttribute('aria-disabled'),
      ).toBeNull();
      await shot(page, `export-menu-images-off-${name}`);
      await shot(page.getByRole('menu'), `export-menu-images-off-${name}-menu`);
      await page.keyboard.press('Escape');
      if (name === '1280-light') {
        // With images on again the export is the preview's view.
        await page.getByRole('button', { name: 'Images Off' }).click();
        await expect.poll(() => new URL(page.url()).searchParams.get('images')).toBeNull();
        await page.getByRole('button', { name: 'Export' }).click();
        await expect
          .poll(() => page.getByTestId('export-note').textContent())
          .toBe('600 px, Light, as in the preview');
        expect(await page.getByTestId('export-images-note').count()).toBe(0);
        await page.keyboard.press('Escape');
      }
      expect(problems.all()).toEqual([]);
    }
  });

  it('at 375 px exports the width the preview shows (Small), and every tab can be reached', async () => {
    const u = await createUser(server.db, { plan: 'pro' });
    const email = await insertEmail(server.db, {
      userId: u.user.id,
      to: 'client@example.com',
      subject: 'Export on a phone',
      html: HTML,
      inlineCss: false,
      createdAt: new Date('2026-11-20T10:00:00Z'),
    });
    await enqueueMail(server.db, { priority: 'pro', to: ['client@example.com'], emailId: email.id });
    for (const [name, width, colorScheme, shown, preset] of [
      ['375-light', 375, 'light', 320, 'Small, 320 pixels'],
      ['375-dark', 375, 'dark', 320, 'Small, 320 pixels'],
      ['1280-light', 1280, 'light', 800, 'Desktop, 800 pixels'],
      ['1280-dark', 1280, 'dark', 800, 'Desktop, 800 pixels'],
    ] as const) {
      const view = { viewport: { width, height: 800 }, colorScheme };
      // Only the first downloads: a page of its own; the others use the file's shared page.
      const page =
        name === '375-light'
          ? await browser.signedInPage(server, u, { acceptDownloads: true, ...view })
          : await browser.pageWith(server, u, view);
      const problems = watchProblems(page, { ignore: [/Blocked script execution in 'about:srcdoc'/] });
      await page.goto(`/app/email/${email.id}`);
      const preview = page.getByRole('radio', { name: preset });
      await expect.poll(() => preview.getAttribute('aria-checked')).toBe('true');
      expect(await page.getByTestId('preview-size').innerText()).toMatch(new RegExp(`^${shown} × `));

      // The detail page's four tabs fit, or say there are more.
      expect(await tabsCutOffWithoutSign(page)).toEqual([]);
      await shot(page, `detail-tabs-${name}`);

      await page.getByRole('button', { name: 'Export' }).click();
      await expect
        .poll(() => page.getByTestId('export-note').textContent())
        .toBe(`${shown} px, Light, as in the preview`);
      await shot(page, `export-menu-${name}`);
      if (name !== '375-light') continue;
      const [png] = await Promise.all([
        page.waitForEvent('download', { timeout: 30_000 }),
        page.getByRole('menuitem', { name: 'Download PNG' }).click(),
      ]);
      expect(png.suggestedFilename()).toBe(`email-${email.id}-320-light.png`);
      expect(PNG.sync.read(await bytesOf(png)).width).toBe(320);

      // A width chosen in the toolbar is the export's too.
      await page.getByRole('radio', { name: 'Mobile, 375 pixels' }).click();
      await page.getByRole('button', { name: 'Export' }).click();
      await expect
        .poll(() => page.getByTestId('export-note').textContent())
        .toBe('375 px, Light, as in the preview');
      await page.keyboard.press('Escape');
      expect(problems.all()).toEqual([]);
    }
  });
});
