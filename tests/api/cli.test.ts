import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../support/free-port.ts';
import { startLoopbackServer, type LoopbackServer } from '../support/loopback-http.ts';
import { createTestApp, type TestApp } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/**
 * The real CLI (bin/proofmail.mjs, docs/decisions/0075-cli.md) as a child process with plain
 * `node`, against a real app listening on loopback.
 */

const root = path.resolve(import.meta.dirname, '../..');
const cli = path.join(root, 'bin/proofmail.mjs');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proofmail-cli-'));
const file = (name: string, content: string) => {
  const p = path.join(dir, name);
  fs.writeFileSync(p, content);
  return p;
};
const welcome = file('welcome.html', '<html><body><h1>Welcome</h1><p>Hello there.</p></body></html>');

let app: TestApp;
let baseUrl: string;
let pro: TestUser;
let proKey: string;

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI the way a CI step does: plain node, a clean environment, stdout and stderr piped. */
function proofmail(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', CI: 'true', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function createKey(user: TestUser): Promise<{ id: string; key: string }> {
  const res = await app.app.inject({
    method: 'POST',
    url: '/api/keys',
    headers: user.headers,
    payload: { name: 'cli' },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  app = await createTestApp({
    env: {
      HOST: '127.0.0.1',
      PORT: String(port),
      PUBLIC_URL: baseUrl,
      FREE_MONTHLY_LIMIT: '1',
      FREE_SENDS_PER_MINUTE: '1000',
      PRO_SENDS_PER_MINUTE: '1000',
    },
  });
  await app.app.listen({ host: '127.0.0.1', port });
  pro = await createUser(app.db, { plan: 'pro' });
  proKey = (await createKey(pro)).key;
});
afterAll(async () => {
  await app?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const env = (key = proKey, url = baseUrl) => ({ PROOFMAIL_URL: url, PROOFMAIL_API_KEY: key });

describe('proofmail send', () => {
  it('--share --json prints one JSON object: the id, the detail URL, the share link and the checklist summary', async () => {
    const ran = await proofmail(
      ['send', welcome, '--to', 'a@example.com,b@example.com', '--subject', 'Welcome', '--share', '--json'],
      env(),
    );
    expect(ran.code, ran.stderr).toBe(0);
    const out = JSON.parse(ran.stdout);
    expect(out).toMatchObject({
      id: expect.any(String),
      url: `${baseUrl}/app/email/${out.id}`,
      shareUrl: expect.stringMatching(new RegExp(`^${baseUrl}/s/[A-Za-z0-9_-]+$`)),
      summary: { errors: expect.any(Number), warnings: expect.any(Number), text: expect.any(String) },
    });
    // The email is the key owner's, sent to both, and its link works.
    const detail = await app.app.inject({ method: 'GET', url: `/api/email/${out.id}`, headers: pro.headers });
    expect(detail.json()).toMatchObject({
      to: 'a@example.com, b@example.com',
      subject: 'Welcome',
      isPublic: true,
    });
    const slug = out.shareUrl.split('/s/')[1];
    expect((await app.app.inject({ method: 'GET', url: `/api/email/public/${slug}` })).statusCode).toBe(200);
    // The checklist printed is the one the server keeps with the email.
    expect(out.checks).toEqual(detail.json().checks);
    expect(out.summary.text).toMatch(/^\d+ errors?, \d+ warnings?$/);
  });

  it('prints the id, the detail URL and the checklist line in plain text, progress as plain lines in CI', async () => {
    const ran = await proofmail(['send', welcome, '--to', 'a@example.com'], env());
    expect(ran.code, ran.stderr).toBe(0);
    const id = /^Sent: (\S+)$/m.exec(ran.stdout)?.[1];
    expect(id).toBeDefined();
    expect(ran.stdout).toContain(`${baseUrl}/app/email/${id}`);
    expect(ran.stdout).toMatch(/^Checklist: \d+ errors?, \d+ warnings?$/m);
    expect(ran.stderr).toContain('Sending welcome.html to a@example.com\n');
    expect(ran.stderr).not.toContain('\r'); // no spinner outside a terminal
  });

  it('--parent sends the next version of that email; an unknown parent is refused (exit 4)', async () => {
    const first = JSON.parse(
      (await proofmail(['send', welcome, '--to', 'a@example.com', '--json'], env())).stdout,
    );
    const ran = await proofmail(
      ['send', welcome, '--to', 'a@example.com', '--parent', first.id, '--json'],
      env(),
    );
    expect(ran.code, ran.stderr).toBe(0);
    const next = JSON.parse(ran.stdout);
    const detail = await app.app.inject({
      method: 'GET',
      url: `/api/email/${next.id}`,
      headers: pro.headers,
    });
    expect(detail.json()).toMatchObject({ threadId: first.id, version: 2 });
    const missing = await proofmail(
      ['send', welcome, '--to', 'a@example.com', '--parent', '00000000-0000-4000-8000-000000000000'],
      env(),
    );
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain('Email not found');
  });

  it('a revoked key gets a clear message and exit 5', async () => {
    const { id, key } = await createKey(pro);
    await app.app.inject({ method: 'DELETE', url: `/api/keys/${id}`, headers: pro.headers });
    const ran = await proofmail(['send', welcome, '--to', 'a@example.com'], env(key));
    expect(ran.code).toBe(5);
    expect(ran.stderr).toContain('The API key was refused: it is not valid or has been revoked');
    expect(ran.stdout).toBe('');
  });

  it('a missing key, an unreachable server, a missing file and bad data JSON each have their message and exit code', async () => {
    const noKey = await proofmail(['send', welcome, '--to', 'a@example.com'], { PROOFMAIL_URL: baseUrl });
    expect(noKey.code).toBe(5);
    expect(noKey.stderr).toContain('PROOFMAIL_API_KEY is not set');

    const down = await proofmail(['check', welcome], env(proKey, `http://127.0.0.1:${await freePort()}`));
    expect(down.code).toBe(8);
    expect(down.stderr).toMatch(/Cannot reach Proofmail at http:\/\/127\.0\.0\.1:\d+: connection refused/);

    const missing = await proofmail(['send', path.join(dir, 'nope.html'), '--to', 'a@example.com'], env());
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('nope.html: file not found');

    const bad = file('bad.json', '{ "name": ');
    const badData = await proofmail(['check', welcome, '--data', bad, '--syntax', 'liquid'], env());
    expect(badData.code).toBe(3);
    expect(badData.stderr).toContain('bad.json: not valid JSON');

    const usage = await proofmail(['send', welcome], env());
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("required option '--to <addresses>' not specified");
  });

  it("prints the server's validation message (exit 4), the limit (exit 6) and an unverified owner (exit 7)", async () => {
    const tooMany = await proofmail(
      ['send', welcome, '--to', 'a@x.test,b@x.test,c@x.test,d@x.test,e@x.test,f@x.test'],
      env(),
    );
    expect(tooMany.code).toBe(4);
    expect(tooMany.stderr).toContain('Too many recipients');

    const free = await createUser(app.db);
    const freeKey = (await createKey(free)).key;
    expect((await proofmail(['send', welcome, '--to', 'a@example.com'], env(freeKey))).code).toBe(0);
    const limited = await proofmail(['send', welcome, '--to', 'a@example.com', '--json'], env(freeKey));
    expect(limited.code).toBe(6);
    expect(JSON.parse(limited.stdout)).toMatchObject({ exitCode: 6, code: expect.any(String) });
    expect(limited.stderr).toMatch(/limit|Upgrade/i);

    const unverified = await createUser(app.db, { verified: false });
    const ran = await proofmail(
      ['send', welcome, '--to', 'a@example.com'],
      env((await createKey(unverified)).key),
    );
    expect(ran.code).toBe(7);
    expect(ran.stderr).toContain('To send emails you must verify your email first.');
  });
});

describe('the checklist and --fail-on', () => {
  /**
   * A loopback proxy in front of the real app records what the CLI sent. Under `/old` it also plays
   * a server from before the checklist: it drops `checks` from the answers that carry them.
   */
  let proxy: LoopbackServer;
  const sent: { path: string; body: Record<string, unknown> }[] = [];
  beforeAll(async () => {
    proxy = await startLoopbackServer(async (req, res) => {
      let raw = '';
      for await (const chunk of req) raw += String(chunk);
      const old = (req.url ?? '').startsWith('/old/');
      const path = old ? (req.url ?? '').slice('/old'.length) : (req.url ?? '');
      if (raw) sent.push({ path, body: JSON.parse(raw) });
      const upstream = await fetch(`${baseUrl}${path}`, {
        method: req.method,
        headers: {
          authorization: String(req.headers.authorization ?? ''),
          'content-type': 'application/json',
        },
        body: raw || undefined,
      });
      let text = await upstream.text();
      const carriesChecks = /^\/api\/email\/(preview|[0-9a-f-]{36})$/.test(path);
      if (old && upstream.ok && carriesChecks) {
        const { checks: _dropped, ...body } = JSON.parse(text);
        text = JSON.stringify(body);
      }
      res.writeHead(upstream.status, { 'content-type': 'application/json' });
      res.end(text);
    });
  });
  afterAll(async () => proxy?.close());

  // Warnings only (a link over http:, no preheader), no error: the server's own checklist says so.
  const withWarnings = file(
    'warnings.html',
    '<!doctype html><html lang="en"><head><title>Hi</title></head><body>\n<p>Hi there</p>\n' +
      '<p><a href="http://example.com/page">Read the page about it</a></p>\n' +
      '<p><a href="https://example.com/unsubscribe">Unsubscribe</a></p>\n</body></html>',
  );

  it('--fail-on warning exits 1 on an email with a warning; --fail-on error does not', async () => {
    const failing = await proofmail(
      ['send', withWarnings, '--to', 'a@example.com', '--fail-on', 'warning'],
      env(proKey, proxy.url),
    );
    expect(failing.code, failing.stderr).toBe(1);
    expect(failing.stdout).toMatch(/^Checklist: 0 errors, [1-9]\d* warnings?$/m);
    expect(failing.stdout).toMatch(/warning +Links: .+http:/);
    expect(failing.stderr).toContain('--fail-on warning');

    const passing = await proofmail(
      ['send', withWarnings, '--to', 'a@example.com', '--fail-on', 'error', '--json'],
      env(proKey, proxy.url),
    );
    expect(passing.code, passing.stderr).toBe(0);
    const out = JSON.parse(passing.stdout);
    expect(out.summary.errors).toBe(0);
    expect(out.summary.warnings).toBeGreaterThan(0);
    expect(out.checks.map((c: { id: string }) => c.id)).toContain('links');
  });

  it('check runs the preview (sends nothing) and applies the same rule', async () => {
    const before = sent.length;
    const ran = await proofmail(['check', withWarnings, '--fail-on', 'warning'], env(proKey, proxy.url));
    expect(ran.code).toBe(1);
    expect(ran.stdout).toMatch(/\(line \d+\)/);
    expect(sent.slice(before).map((s) => s.path)).toEqual(['/api/email/preview']);
  });

  it('.mjml files go as MJML and --data as the template data', async () => {
    const mjml = file(
      'welcome.mjml',
      '<mjml><mj-body><mj-section><mj-column><mj-text>Hi {{name}}</mj-text></mj-column></mj-section></mj-body></mjml>',
    );
    const data = file('sample.json', '{ "name": "Ada" }');
    const before = sent.length;
    const ran = await proofmail(
      ['check', mjml, '--data', data, '--syntax', 'handlebars', '--json'],
      env(proKey, proxy.url),
    );
    expect(sent[before]?.body).toMatchObject({
      format: 'mjml',
      template: { syntax: 'handlebars', data: { name: 'Ada' } },
    });
    expect(ran.code, ran.stderr).toBe(0);
    expect(JSON.parse(ran.stdout).checks.length).toBeGreaterThan(0);
  });

  it('--text sends the plain-text part written beside the HTML, its merge tags filled', async () => {
    const text = file('welcome.txt', 'Hi {{name}},\r\nwelcome aboard.\n');
    const data = file('name.json', '{ "name": "Ada" }');
    const before = sent.length;
    const ran = await proofmail(
      ['send', welcome, '--to', 'a@example.com', '--text', text, '--data', data, '--json'],
      env(proKey, proxy.url),
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(sent[before]?.body).toMatchObject({ text: 'Hi {{name}},\r\nwelcome aboard.\n' });
    const { id } = JSON.parse(ran.stdout) as { id: string };
    const row = await app.db
      .selectFrom('emails')
      .select(['text_part', 'text_override'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({
      text_part: 'Hi Ada,\nwelcome aboard.\n',
      text_override: 'Hi {{name}},\r\nwelcome aboard.\n',
    });
    const missing = await proofmail(['check', welcome, '--text', path.join(dir, 'nope.txt')], env());
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('nope.txt: file not found');
  });

  it('reads a file as its editor wrote it: UTF-16 with a byte-order mark, no mark in the text, other bytes refused where they are', async () => {
    const html = '<p>Grüße 😀</p>';
    const utf16le = path.join(dir, 'unicode.html');
    fs.writeFileSync(utf16le, Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(html, 'utf16le')]));
    const bomData = path.join(dir, 'bom.json');
    fs.writeFileSync(bomData, Buffer.from('\uFEFF{ "name": "Zoë" }', 'utf8'));
    const before = sent.length;
    const ran = await proofmail(['check', utf16le, '--data', bomData, '--json'], env(proKey, proxy.url));
    expect(ran.code, ran.stderr).toBe(0);
    expect(sent[before]?.body).toMatchObject({ html, template: { data: { name: 'Zoë' } } });

    const latin1 = path.join(dir, 'latin1.html');
    fs.writeFileSync(latin1, Buffer.from('<p>x</p>\n<p>caf\xe9</p>', 'latin1'));
    const withReplacement = path.join(dir, 'fffd.html');
    fs.writeFileSync(
      withReplacement,
      Buffer.concat([Buffer.from('<p>\uFFFD ok</p>\n<p>'), Buffer.from([0xc3, 0x28])]),
    );
    for (const [name, where] of [
      [latin1, 'byte 0xE9 at line 2, column 7'],
      [withReplacement, 'byte 0xC3 at line 2, column 4'],
    ] as const) {
      const refused = await proofmail(['check', name], env(proKey, proxy.url));
      expect(refused.code).toBe(3);
      expect(refused.stderr).toContain(
        `${path.basename(name)}: not UTF-8 text (${where}). Save it as UTF-8.`,
      );
    }
    expect(sent.length).toBe(before + 1);
  });

  it('against a server without the checklist it says so and --fail-on does not fail', async () => {
    const ran = await proofmail(
      ['check', withWarnings, '--fail-on', 'warning'],
      env(proKey, `${proxy.url}/old`),
    );
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toContain('Checklist: checklist not available on this server');
    expect(ran.stderr).toContain('--fail-on warning not applied');
  });
});

describe('proofmail open', () => {
  it('prints the detail URL of an email', async () => {
    const ran = await proofmail(['open', 'abc-123'], { PROOFMAIL_URL: `${baseUrl}/` });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe(`${baseUrl}/app/email/abc-123\n`);
  });
});
