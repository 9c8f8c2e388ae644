import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_IDS, DEFAULT_TARGET_CLIENTS, type Check } from '../../src/shared/contract/checks.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-http.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * The pre-send checklist over the API: preview answers it, send stores it with the email, the
 * detail returns the stored one, and the target clients setting steers the compatibility check.
 */

const flexEmail =
  '<html lang="en"><head><title>T</title></head><body><div style="display:none">Summary</div>' +
  '<div style="display:flex"><p>One</p><p>Two</p></div><img src="https://cdn.example.com/a.png" width="10">' +
  '<a href="https://example.com/unsubscribe">Unsubscribe</a></body></html>';

const byId = (checks: Check[]) => Object.fromEntries(checks.map((c) => [c.id, c]));

describe('the pre-send checklist', () => {
  let ctx: TestContext;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    ctx = await createTestContext({
      env: {
        PREVIEWS_PER_MINUTE: '1000',
        FREE_SENDS_PER_MINUTE: '1000',
        FREE_MONTHLY_LIMIT: '100',
        // The live checks below reach only a loopback server (docs/decisions/0060-egress-guard.md).
        EGRESS_ALLOW_LOOPBACK: '1',
        NODE_ENV: 'test',
      },
    });
    alice = await createUser(ctx.db, { plan: 'pro' });
    bob = await createUser(ctx.db, { plan: 'pro' });
  });
  afterAll(async () => ctx?.close());

  const post = (u: TestUser | undefined, url: string, body: unknown) =>
    ctx.app.inject({ method: 'POST', url, headers: u?.headers, payload: body as object });
  const put = (u: TestUser | undefined, body: unknown) =>
    ctx.app.inject({
      method: 'PUT',
      url: '/api/user/target-clients',
      headers: u?.headers,
      payload: body as object,
    });

  it('preview answers every check, in the order of the ids, on the HTML as sent', async () => {
    const res = await post(alice, '/api/email/preview', { subject: 'Hi', html: flexEmail });
    expect(res.statusCode).toBe(200);
    const checks = res.json().checks as Check[];
    expect(checks.map((c) => c.id)).toEqual([...CHECK_IDS]);
    const c = byId(checks);
    expect(c.compatibility!.status).toBe('error');
    const flex = c.compatibility!.findings.find((f) => f.severity === 'error')!;
    expect(flex.message).toContain('Outlook (Windows, classic)');
    expect(flex.line).toBe(1);
    expect(c.images!.status).toBe('error');
    expect(c.images!.findings[0]!.element).toContain('<img');
    expect(c.size!.findings[0]!.message).toMatch(/KB of Gmail's 102 KB/);
    // No SPAMD_URL here: skipped, with its reason.
    expect(c.spam!.status).toBe('skipped');
    expect(c.spam!.findings[0]!.message).toMatch(/SPAMD_URL/);
  });

  it('runs the checks after inlining: a <style> rule inlined onto an element is reported there', async () => {
    const html =
      '<html lang="en"><head><title>T</title><style>.x { display: flex }</style></head><body>' +
      '<div style="display:none">S</div>\n\n<div class="x">a</div><a href="https://e.com/unsubscribe">Unsubscribe</a></body></html>';
    const res = await post(alice, '/api/email/preview', { subject: 'Hi', html, inlineCss: true });
    const compat = byId(res.json().checks).compatibility!;
    const flex = compat.findings.find((f) => f.severity === 'error')!;
    expect(flex.line).toBe(3);
    expect(flex.element).toContain('style="display: flex');
  });

  it("reports no merge tag the author kept literal with the engine's own escape, and still those of another syntax", async () => {
    const mergeTagErrors = async (syntax: string, html: string) => {
      const res = await post(alice, '/api/email/preview', {
        subject: 'Hi',
        html,
        template: { syntax, data: {} },
      });
      expect(res.statusCode, res.body).toBe(200);
      return byId(res.json().checks)
        .content!.findings.filter((f) => /merge tag/.test(f.message))
        .map((f) => f.message);
    };
    expect(
      await mergeTagErrors(
        'liquid',
        '<p>Use {% raw %}{{ first_name }} and {% if x %}{% endraw %} in your own templates.</p>',
      ),
    ).toEqual([]);
    expect(await mergeTagErrors('handlebars', '<p>Write \\{{escaped}} to keep a tag.</p>')).toEqual([]);
    // A Liquid tag in a Handlebars email is left as written: reported.
    expect(await mergeTagErrors('handlebars', '<p>{% if vip %}VIP{% endif %}</p>')).toEqual([
      'A merge tag was left unfilled in the HTML: {% if vip %}.',
      'A merge tag was left unfilled in the HTML: {% endif %}.',
    ]);
  });

  describe('live checks', () => {
    let site: LoopbackServer;
    beforeAll(async () => {
      site = await startLoopbackServer((req, res) => {
        if (req.url === '/logo.png') {
          res.writeHead(200, { 'content-type': 'image/png', 'content-length': '4' });
          res.end('\x89PNG');
        } else {
          res.writeHead(404, { 'content-type': 'text/plain' });
          res.end('Not found');
        }
      });
    });
    afterAll(async () => site?.close());

    const liveEmail = () =>
      '<html lang="en"><head><title>T</title></head><body><div style="display:none">Summary</div>' +
      `<p><a href="${site.url}/missing">The spring catalogue</a></p>` +
      `<img src="${site.url}/logo.png" width="10" alt="Logo">` +
      `<a href="${site.url}/unsubscribe">Unsubscribe</a></body></html>`;

    it('run only when asked for: a preview without live contacts nothing', async () => {
      const before = site.requests.length;
      const res = await post(alice, '/api/email/preview', { subject: 'Hi', html: liveEmail() });
      expect(res.statusCode).toBe(200);
      expect(site.requests.length).toBe(before);
      expect(byId(res.json().checks).links!.findings.filter((f) => f.severity === 'error')).toEqual([]);
    });

    it('with live: true, a broken link is an error of the links check', async () => {
      const res = await post(alice, '/api/email/preview', { subject: 'Hi', html: liveEmail(), live: true });
      expect(res.statusCode).toBe(200);
      const links = byId(res.json().checks).links!;
      expect(links.status).toBe('error');
      const broken = links.findings.find((f) => f.severity === 'error')!;
      expect(broken.message).toMatch(/404/);
      expect(broken.line).toBe(1);
      expect(site.requests.some((r) => r.path === '/missing')).toBe(true);
      expect(site.requests.some((r) => r.path === '/logo.png')).toBe(true);
    });
  });

  it('folds the same problem on 12,000 elements: a small answer, every check at most 30 findings, the same statuses', async () => {
    const html = `<a href="http://x.example/">click here</a><img src="data:image/png;base64,AA">\n`.repeat(
      12_000,
    );
    const res = await post(alice, '/api/email/preview', { subject: 'Hi', html });
    expect(res.statusCode).toBe(200);
    // Unfolded it was 16 MB: 12,000 findings for the links, 36,000 for the images.
    expect(res.body.length).toBeLessThan(1_500_000);
    const c = byId(res.json().checks as Check[]);
    for (const check of Object.values(c)) expect(check.findings.length).toBeLessThanOrEqual(30);
    expect(c.images!.status).toBe('error');
    expect(c.images!.findings.map((f) => f.message)).toContain(
      'The same in 11,997 more places (lines 4, 5, 6, 7, 8, …).',
    );
    expect(c.links!.status).not.toBe('pass');
  });

  it('rejects a non-boolean live flag', async () => {
    const res = await post(alice, '/api/email/preview', { html: '<p>x</p>', live: 'yes' });
    expect(res.statusCode).toBe(400);
  });

  it('send stores the checklist with the email, and the detail returns it', async () => {
    const res = await post(alice, '/api/email/send', {
      to: 'client@example.com',
      subject: 'Hi',
      html: flexEmail,
    });
    expect(res.statusCode).toBe(200);
    const { id } = res.json();
    const row = await ctx.db
      .selectFrom('emails')
      .select('checks')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row.checks!.map((c) => c.id)).toEqual([...CHECK_IDS]);

    const detail = await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: alice.headers });
    expect(detail.statusCode).toBe(200);
    const checks = detail.json().checks as Check[];
    expect(checks).toEqual(row.checks);
    expect(byId(checks).compatibility!.status).toBe('error');

    // The preview of the same body answers the same checklist.
    const preview = await post(alice, '/api/email/preview', {
      to: 'client@example.com',
      subject: 'Hi',
      html: flexEmail,
    });
    expect(preview.json().checks).toEqual(checks);

    // Another user's email stays a 404.
    const other = await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: bob.headers });
    expect(other.statusCode).toBe(404);
  });

  it('an email sent before checklists answers checks: null', async () => {
    const { id } = await ctx.db
      .insertInto('emails')
      .values({ user_id: alice.user.id, to_addresses: 'a@example.com', subject: 'Old', html: '<p>Old</p>' })
      .returning('id')
      .executeTakeFirstOrThrow();
    const detail = await ctx.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: alice.headers });
    expect(detail.statusCode).toBe(200);
    expect(detail.json().checks).toBeNull();
  });

  describe('target clients', () => {
    it('answers the default set until the user chooses', async () => {
      const carol = await createUser(ctx.db);
      const res = await ctx.app.inject({
        method: 'GET',
        url: '/api/user/target-clients',
        headers: carol.headers,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ targetClients: [...DEFAULT_TARGET_CLIENTS] });
    });

    it('stores the choice, and the compatibility check scores only those clients', async () => {
      const dave = await createUser(ctx.db);
      const res = await put(dave, { targetClients: ['apple-mail-ios', 'apple-mail-macos'] });
      expect(res.statusCode).toBe(200);
      // In the catalogue's order.
      expect(res.json()).toEqual({ targetClients: ['apple-mail-macos', 'apple-mail-ios'] });
      const get = await ctx.app.inject({
        method: 'GET',
        url: '/api/user/target-clients',
        headers: dave.headers,
      });
      expect(get.json()).toEqual({ targetClients: ['apple-mail-macos', 'apple-mail-ios'] });

      const preview = await post(dave, '/api/email/preview', { subject: 'Hi', html: flexEmail });
      expect(byId(preview.json().checks).compatibility!.status).toBe('pass');
      // A send scores the same clients (it reads them with its limits, in one statement).
      const sent = await post(dave, '/api/email/send', {
        to: 'client@example.com',
        subject: 'Hi',
        html: flexEmail,
      });
      expect(sent.statusCode).toBe(200);
      const stored = await ctx.db
        .selectFrom('emails')
        .select('checks')
        .where('id', '=', sent.json<{ id: string }>().id)
        .executeTakeFirstOrThrow();
      expect(byId(stored.checks!).compatibility!.status).toBe('pass');
      // Alice keeps the default set: Outlook is among them.
      const hers = await post(alice, '/api/email/preview', { subject: 'Hi', html: flexEmail });
      expect(byId(hers.json().checks).compatibility!.status).toBe('error');
    });

    it('rejects an unknown client id by name, an empty set and a malformed body, changing nothing', async () => {
      const erin = await createUser(ctx.db);
      await put(erin, { targetClients: ['gmail-web'] });
      const unknown = await put(erin, { targetClients: ['gmail-web', 'lotus-notes'] });
      expect(unknown.statusCode).toBe(400);
      expect(unknown.json().error).toMatch(
        /^Unknown target client "lotus-notes"\. Known clients: gmail-web, /,
      );
      const empty = await put(erin, { targetClients: [] });
      expect(empty.statusCode).toBe(400);
      expect(empty.json().error).toBe('Choose at least one target client.');
      expect((await put(erin, { targetClients: 'gmail-web' })).statusCode).toBe(400);
      expect((await put(erin, { targetClients: ['gmail-web'], extra: 1 })).statusCode).toBe(400);
      const get = await ctx.app.inject({
        method: 'GET',
        url: '/api/user/target-clients',
        headers: erin.headers,
      });
      expect(get.json()).toEqual({ targetClients: ['gmail-web'] });
    });

    it('needs a session', async () => {
      expect((await ctx.app.inject({ method: 'GET', url: '/api/user/target-clients' })).statusCode).toBe(401);
      expect((await put(undefined, { targetClients: ['gmail-web'] })).statusCode).toBe(401);
    });
  });

  it('names a media query rule that Inline CSS left overridden by the style attribute it wrote', async () => {
    const html =
      '<html lang="en"><head><title>T</title><style>\n.lead { color: #222222 }\n' +
      '@media screen and (max-width:600px) {\n  .lead { color: #000000 }\n}\n</style></head><body>' +
      '<div style="display:none">S</div><p class="lead">Hello</p><a href="https://e.com/unsubscribe">Unsubscribe</a></body></html>';
    const res = await post(alice, '/api/email/preview', { subject: 'Hi', html, inlineCss: true });
    expect(res.statusCode).toBe(200);
    const compat = byId(res.json().checks).compatibility!;
    const found = compat.findings.filter((f) => /^A rule in @media/.test(f.message));
    expect(found).toEqual([
      {
        severity: 'warning',
        message: expect.stringMatching(
          /^A rule in @media screen and \(max-width:600px\) sets color on "\.lead" without !important, but the element's style attribute sets color too/,
        ),
        hint: expect.stringMatching(/^Add !important to the rule's color/),
        // The line of the rule in the HTML as sent, the inlined `.lead` rule gone from above it.
        line: 3,
        element: '<p class="lead" style="color: #222222;">',
      },
    ]);
    expect(compat.status).toBe('warning');
    // Without Inline CSS the rule applies: nothing to say.
    const asWritten = await post(alice, '/api/email/preview', { subject: 'Hi', html });
    const plain = byId(asWritten.json().checks).compatibility!;
    expect(plain.findings.filter((f) => /^A rule in @media/.test(f.message))).toEqual([]);
  });

  it('the clean fixtures preview with no error-level finding', async () => {
    const dir = path.join(import.meta.dirname, '../fixtures/clean-emails');
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.html'))) {
      const html = fs.readFileSync(path.join(dir, file), 'utf8');
      const res = await post(alice, '/api/email/preview', {
        subject: 'A good subject line',
        html,
        inlineCss: true,
      });
      expect(res.statusCode).toBe(200);
      const errors = (res.json().checks as Check[]).flatMap((c) =>
        c.findings.filter((f) => f.severity === 'error').map((f) => `${file} ${c.id}: ${f.message}`),
      );
      expect(errors).toEqual([]);
    }
  });
});
