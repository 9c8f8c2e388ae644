import { gzipSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/server/app.ts';
import { loadConfig } from '../../src/server/config.ts';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { launchBrowser, signIn } from '../../tests/support/chromium.ts';
import { createUser } from '../../tests/support/users.ts';
import { webAppBuild } from '../../tests/support/web-build.ts';
import type { BenchContext, MetricResults } from '../support/metric.ts';

/**
 * JavaScript a visitor downloads (gzip) to see each page: a production build served by the real
 * app, loaded in Chromium; every script response the page fetched until it settled is counted.
 * /app/send includes the lazily loaded code editor, since the page shows it at once.
 */
export default async function bundle(ctx: BenchContext): Promise<MetricResults> {
  const { dir: webRoot } = await webAppBuild(); // the production build, from the cache when current
  const pg = await ctx.postgres();
  const database = await pg.createDatabase();
  const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'warn' });
  const app = await buildApp({ config, db: database.db, webRoot });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const browser = await launchBrowser();
  try {
    const user = await createUser(database.db, { plan: 'pro' });
    const { id } = await insertEmail(database.db, {
      userId: user.user.id,
      to: 'client@example.com',
      subject: 'Shared',
      html: '<p>Hello</p>',
      inlineCss: false,
      createdAt: new Date(),
    });
    const slug = 'benchmarkslug0000000000';
    // A public link of the email's thread (migration 0018: links live in email_shares).
    await database.db
      .insertInto('email_shares')
      .values({ thread_id: id, user_id: user.user.id, slug, created_at: new Date() })
      .execute();

    const measure = async (pathname: string, token?: string, ready?: string) => {
      const context = await browser.newContext();
      if (token) await signIn(context, base, token);
      const page = await context.newPage();
      const scripts = new Map<string, number>();
      page.on('response', async (res) => {
        if (res.request().resourceType() !== 'script') return;
        try {
          scripts.set(res.url(), gzipSync(await res.body()).length);
        } catch {
          // a redirect or an aborted request has no body
        }
      });
      await page.goto(base + pathname, { waitUntil: 'networkidle' });
      if (ready) await page.locator(ready).first().waitFor();
      await page.waitForLoadState('networkidle');
      await context.close();
      const total = [...scripts.values()].reduce((a, b) => a + b, 0);
      ctx.log(`${pathname}: ${scripts.size} scripts, ${(total / 1024).toFixed(1)} KB gzip`);
      return Math.round((total / 1024) * 10) / 10;
    };
    return {
      js_landing_kb_gzip: { value: await measure('/', undefined, 'h1'), unit: 'KB gzip' },
      js_send_kb_gzip: { value: await measure('/app/send', user.token, '.cm-content'), unit: 'KB gzip' },
      js_share_kb_gzip: { value: await measure(`/s/${slug}`, undefined, 'iframe'), unit: 'KB gzip' },
    };
  } finally {
    await browser.close();
    await app.close();
    await database.drop();
  }
}
