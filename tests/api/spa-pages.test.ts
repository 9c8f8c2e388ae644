import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEmail } from '../../src/server/features/email/email.repo.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser } from '../support/users.ts';

/**
 * The pages of the web app (src/server/http/spa.ts): every page address answers index.html to
 * whoever asks for a page or for anything (a browser, `curl`, a link checker, an uptime monitor, a
 * chat app unfurling a share link), while files that are not there (a missing chunk of an old
 * build) and /api addresses stay JSON 404s.
 */

const INDEX =
  '<!doctype html><html><head><title>Proofmail</title></head><body><div id="root"></div></body></html>';
/** What clients send: a browser's navigation, curl, link checkers and unfurlers, none at all. */
const PAGE_ACCEPTS: Record<string, string | undefined> = {
  browser: 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
  curl: '*/*',
  'no Accept': undefined,
  xhtml: 'application/xhtml+xml',
  'any text': 'text/*',
};

let ctx: TestContext;
let webRoot: string;

beforeAll(async () => {
  webRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'proofmail-spa-'));
  fs.mkdirSync(path.join(webRoot, 'assets'));
  fs.writeFileSync(path.join(webRoot, 'index.html'), INDEX);
  fs.writeFileSync(path.join(webRoot, 'assets', 'app-1a2b3c.js'), 'console.log(1);\n');
  ctx = await createTestContext({ deps: { webRoot } });
});
afterAll(async () => {
  await ctx?.close();
  if (webRoot) fs.rmSync(webRoot, { recursive: true, force: true });
});

const get = (url: string, accept: string | undefined, method: 'GET' | 'HEAD' = 'GET') =>
  ctx.app.inject({ method, url, headers: accept === undefined ? {} : { accept } });

function expectPage(res: LightMyRequestResponse, what: string): void {
  expect(res.statusCode, what).toBe(200);
  expect(res.headers['content-type'], what).toBe('text/html; charset=utf-8');
  expect(res.headers['cache-control'], what).toBe('no-cache');
  expect(res.body, what).toBe(INDEX);
}

describe('page addresses', () => {
  it('answer the page to a browser, to */*, and to a request without Accept', async () => {
    for (const url of [
      '/',
      '/docs/api',
      '/plan',
      '/pricing',
      '/app/send',
      '/s/abcDEF123_-x',
      '/verify?token=a.b.c',
    ]) {
      for (const [who, accept] of Object.entries(PAGE_ACCEPTS)) {
        expectPage(await get(url, accept), `${url} for ${who}`);
      }
    }
    const head = await get('/docs/api', '*/*', 'HEAD');
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-type']).toBe('text/html; charset=utf-8');
  });

  it('answer a client that takes only JSON, or refuses HTML, the JSON 404', async () => {
    for (const accept of ['application/json', 'text/html;q=0, application/json', 'image/png']) {
      const res = await get('/docs/api', accept);
      expect(res.statusCode, accept).toBe(404);
      expect(res.json(), accept).toEqual({ error: 'Page not found', code: 'not_found' });
    }
    // Pages are read, not written.
    const post = await ctx.app.inject({ method: 'POST', url: '/docs/api', headers: { accept: '*/*' } });
    expect(post.statusCode).toBe(404);
  });

  it('public share links answer the same page whether the link is live, withdrawn or never was', async () => {
    const owner = await createUser(ctx.db, { plan: 'pro' });
    const share = async () => {
      const email = await insertEmail(ctx.db, {
        userId: owner.user.id,
        to: 'a@example.com',
        subject: 'Shared',
        html: '<p>Shared</p>',
        inlineCss: false,
        createdAt: ctx.clock.now(),
      });
      const res = await ctx.app.inject({
        method: 'POST',
        url: `/api/email/${email.id}/share`,
        headers: owner.headers,
      });
      expect(res.statusCode, res.body).toBe(200);
      return { id: email.id, slug: res.json().email.publicSlug as string };
    };
    const live = await share();
    const withdrawn = await share();
    await ctx.app.inject({
      method: 'DELETE',
      url: `/api/email/${withdrawn.id}/share`,
      headers: owner.headers,
    });
    const answers = await Promise.all(
      [live.slug, withdrawn.slug, 'never-was-a-link-123456'].map((slug) => get(`/s/${slug}`, '*/*')),
    );
    const shape = (res: LightMyRequestResponse) => {
      const { date: _date, ...headers } = res.headers;
      return { status: res.statusCode, headers, body: res.body };
    };
    expect(shape(answers[0]!).headers['x-robots-tag']).toMatch(/^noindex/);
    expect(shape(answers[0]!).headers['referrer-policy']).toBe('no-referrer');
    expectPage(answers[0]!, 'a live link');
    expect(shape(answers[1]!)).toEqual(shape(answers[0]!));
    expect(shape(answers[2]!)).toEqual(shape(answers[0]!));
  });
});

describe('files and the API', () => {
  it('serve the files that exist, with their own type', async () => {
    const res = await get('/assets/app-1a2b3c.js', '*/*');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('answer a file that is not there with the JSON 404, never the page, whatever the Accept', async () => {
    for (const url of [
      '/assets/app-old.js',
      '/assets/style-old.css',
      '/assets/deep/x',
      '/favicon.ico',
      '/robots.txt',
    ]) {
      for (const [who, accept] of Object.entries(PAGE_ACCEPTS)) {
        const res = await get(url, accept);
        expect(res.statusCode, `${url} for ${who}`).toBe(404);
        expect(res.json(), `${url} for ${who}`).toEqual({ error: 'Page not found', code: 'not_found' });
      }
    }
  });

  it('answer an unknown /api address with the JSON 404, whatever the Accept', async () => {
    for (const url of ['/api/nothing-here', '/api', '/api?x=1']) {
      for (const [who, accept] of Object.entries(PAGE_ACCEPTS)) {
        const res = await get(url, accept);
        expect(res.statusCode, `${url} for ${who}`).toBe(404);
        expect(res.json(), `${url} for ${who}`).toEqual({ error: 'Not found', code: 'not_found' });
      }
    }
  });
});
