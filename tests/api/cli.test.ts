import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertApiKey } from '../../src/server/accounts/api-keys.repo.ts';
import { newApiKey } from '../../src/server/accounts/api-keys.ts';
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

/**
 * The CLI's run() in this process, with its output collected: for what a child cannot be given, a
 * terminal, or the request timeout (`requestTimeoutMs`, which no option or variable sets).
 */
async function inProcess(
  argv: string[],
  io: { tty?: boolean; env: Record<string, string>; requestTimeoutMs?: number },
): Promise<Ran> {
  const { run } = (await import(pathToFileURL(cli).href)) as {
    run: (argv: string[], io: unknown) => Promise<number>;
  };
  const out = { stdout: '', stderr: '' };
  const stream = (name: 'stdout' | 'stderr') => ({
    isTTY: io.tty ?? false,
    write: (s: string) => ((out[name] += s), true),
  });
  const code = await run(argv, {
    stdout: stream('stdout'),
    stderr: stream('stderr'),
    env: io.env,
    requestTimeoutMs: io.requestTimeoutMs,
  });
  return { code, ...out };
}

/**
 * A loopback proxy in front of the real app records what the CLI sent. Under `/old` it also plays
 * a server from before the checklist: it drops `checks` from the answers that carry them. Under
 * `/no-share` the share link fails (a 500) after the send went through; under `/no-checks` the
 * email's own answer (its checklist) does.
 */
let proxy: LoopbackServer;
const sent: { path: string; body: Record<string, unknown> }[] = [];
beforeAll(async () => {
  proxy = await startLoopbackServer(async (req, res) => {
    let raw = '';
    for await (const chunk of req) raw += String(chunk);
    const mode = /^\/(old|no-share|no-checks)\//.exec(req.url ?? '')?.[1];
    const path = mode ? (req.url ?? '').slice(mode.length + 1) : (req.url ?? '');
    if (raw) sent.push({ path, body: JSON.parse(raw) });
    if (
      (mode === 'no-share' && req.method === 'POST' && /^\/api\/email\/[^/]+\/share$/.test(path)) ||
      (mode === 'no-checks' && req.method === 'GET' && /^\/api\/email\/[0-9a-f-]{36}$/.test(path))
    ) {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Something went wrong', code: 'internal' }));
      return;
    }
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
    if (mode === 'old' && upstream.ok && carriesChecks) {
      const { checks: _dropped, ...body } = JSON.parse(text);
      text = JSON.stringify(body);
    }
    res.writeHead(upstream.status, { 'content-type': 'application/json' });
    res.end(text);
  });
});
afterAll(async () => proxy?.close());

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

  it("a repeated --to adds its recipients to the others, within the server's cap", async () => {
    const ran = await proofmail(
      ['send', welcome, '--to', 'a@example.com', '--to', 'b@example.com,c@example.com', '--json'],
      env(),
    );
    expect(ran.code, ran.stderr).toBe(0);
    const { id } = JSON.parse(ran.stdout) as { id: string };
    const detail = await app.app.inject({ method: 'GET', url: `/api/email/${id}`, headers: pro.headers });
    expect(detail.json()).toMatchObject({ to: 'a@example.com, b@example.com, c@example.com' });
    // The cap counts them all, as the server says.
    const six = ['a', 'b', 'c', 'd', 'e', 'f'].flatMap((name) => ['--to', `${name}@x.test`]);
    const tooMany = await proofmail(['send', welcome, ...six], env());
    expect(tooMany.code).toBe(4);
    expect(tooMany.stderr).toContain('Too many recipients');
  });

  it("--share on a Free account is refused before the send (exit 6): nothing sent, none of the month's sends used", async () => {
    const free = await createUser(app.db);
    const freeKey = (await createKey(free)).key;
    const ran = await proofmail(
      ['send', welcome, '--to', 'a@example.com', '--share', '--json'],
      env(freeKey),
    );
    expect(ran.code, ran.stderr).toBe(6);
    expect(JSON.parse(ran.stdout)).toEqual({
      error: expect.stringContaining('Nothing was sent'),
      code: 'plan_required',
      exitCode: 6,
    });
    expect(ran.stderr).toMatch(/--share: public share links are a Pro feature.+Nothing was sent/);
    const emails = await app.db
      .selectFrom('emails')
      .select('id')
      .where('user_id', '=', free.user.id)
      .execute();
    expect(emails).toEqual([]);
    // The one send of the month (FREE_MONTHLY_LIMIT=1) is still there.
    const plain = await proofmail(['send', welcome, '--to', 'a@example.com'], env(freeKey));
    expect(plain.code, plain.stderr).toBe(0);
  });

  it('a share link that fails after the send keeps the send: the result printed, then the error and its exit code', async () => {
    const json = await proofmail(
      ['send', welcome, '--to', 'a@example.com', '--share', '--json'],
      env(proKey, `${proxy.url}/no-share`),
    );
    expect(json.code).toBe(9);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({
      id: expect.any(String),
      url: `${proxy.url}/no-share/app/email/${out.id}`,
      shareUrl: null,
      summary: { text: expect.stringMatching(/^\d+ errors?, \d+ warnings?$/) },
      checks: expect.any(Array),
      error: expect.stringContaining(`Sent ${out.id}`),
      code: 'internal',
    });
    expect(json.stderr).toContain(`proofmail: Sent ${out.id}`);
    expect(json.stderr).toContain('but no share link: The server failed: Something went wrong');
    const row = await app.db
      .selectFrom('emails')
      .select('user_id')
      .where('id', '=', out.id)
      .executeTakeFirst();
    expect(row).toEqual({ user_id: pro.user.id });

    const text = await proofmail(
      ['send', welcome, '--to', 'a@example.com', '--share'],
      env(proKey, `${proxy.url}/no-share`),
    );
    expect(text.code).toBe(9);
    const id = /^Sent: (\S+)$/m.exec(text.stdout)?.[1];
    expect(id).toBeDefined();
    expect(text.stdout).toMatch(/^Checklist: \d+ errors?, \d+ warnings?$/m);
    expect(text.stdout).not.toContain('Share link');
    expect(text.stderr).toContain(`proofmail: Sent ${id}`);
  });

  it('a checklist that cannot be read after the send keeps the send: its id, then the error and its exit code', async () => {
    const json = await proofmail(
      ['send', welcome, '--to', 'a@example.com', '--json', '--fail-on', 'error'],
      env(proKey, `${proxy.url}/no-checks`),
    );
    expect(json.code).toBe(9);
    const out = JSON.parse(json.stdout);
    expect(out).toMatchObject({
      id: expect.any(String),
      url: `${proxy.url}/no-checks/app/email/${out.id}`,
      shareUrl: null,
      summary: { text: 'checklist not read' },
      checks: null,
      error: expect.stringContaining(`Sent ${out.id}`),
    });
    expect(json.stderr).toContain(
      'but its checklist could not be read: The server failed: Something went wrong',
    );
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

  it('--parent sends the next version of that email; an unknown or malformed one is refused, naming it (exit 4)', async () => {
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
    const unknown = '00000000-0000-4000-8000-000000000000';
    const missing = await proofmail(['send', welcome, '--to', 'a@example.com', '--parent', unknown], env());
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain(`proofmail: --parent ${unknown}: you have no email with this id`);
    const malformed = await proofmail(['send', welcome, '--to', 'a@example.com', '--parent', '42'], env());
    expect(malformed.code).toBe(4);
    expect(malformed.stderr).toContain('proofmail: --parent 42: not an email id');
    expect(malformed.stderr).not.toContain('parentId');
  });

  it('a revoked key gets one clear message and exit 5', async () => {
    const { id, key } = await createKey(pro);
    await app.app.inject({ method: 'DELETE', url: `/api/keys/${id}`, headers: pro.headers });
    const ran = await proofmail(['send', welcome, '--to', 'a@example.com'], env(key));
    expect(ran.code).toBe(5);
    // The CLI's sentence, not the server's similar one after it.
    expect(ran.stderr).toMatch(
      /^proofmail: The API key was refused: it is not valid or has been revoked\. Create a new key in Proofmail under Account → API Keys and set it in PROOFMAIL_API_KEY\.\n$/m,
    );
    expect(ran.stderr.match(/revoked/g)).toHaveLength(1);
    expect(ran.stdout).toBe('');
  });

  it('a key in the wrong shape gets one clear message and exit 5: in quotes (refused before asking), or not a pm_ key', async () => {
    const before = sent.length;
    const quoted = await proofmail(['send', welcome, '--to', 'a@example.com'], env(`"${proKey}"`, proxy.url));
    expect(quoted.code).toBe(5);
    expect(quoted.stderr).toBe(
      'proofmail: PROOFMAIL_API_KEY is not a valid API key: it is in quotes. Set it to the key alone ' +
        '(pm_ and letters, digits, - and _), as Proofmail showed it under Account → API Keys.\n',
    );
    expect(sent.length).toBe(before);
    const json = await proofmail(
      ['check', welcome, '--json'],
      env(`${proKey.slice(0, 10)} ${proKey.slice(10)}`),
    );
    expect(JSON.parse(json.stdout)).toEqual({
      error: expect.stringContaining('it holds characters that no key has'),
      code: 'invalid_api_key',
      exitCode: 5,
    });

    // The server tries a token without pm_ as a session: "Not authenticated", not said twice.
    const notAKey = await proofmail(['send', welcome, '--to', 'a@example.com'], env('abc123'));
    expect(notAKey.code).toBe(5);
    expect(notAKey.stderr).toMatch(
      /^proofmail: The API key was refused: PROOFMAIL_API_KEY does not start with pm_, as every Proofmail API key does\. .+\n$/m,
    );
    expect(notAKey.stderr).not.toContain('Not authenticated');

    // The line break a pasted secret ends with is no part of the key.
    const pasted = await proofmail(['check', welcome], env(`${proKey}\n`));
    expect(pasted.code, pasted.stderr).toBe(0);
  });

  it('a missing key, an unreachable server, a missing file and bad data JSON each have their message and exit code', async () => {
    const noKey = await proofmail(['send', welcome, '--to', 'a@example.com'], { PROOFMAIL_URL: baseUrl });
    expect(noKey.code).toBe(5);
    expect(noKey.stderr).toContain('PROOFMAIL_API_KEY is not set');

    const down = await proofmail(['check', welcome], env(proKey, `http://127.0.0.1:${await freePort()}`));
    expect(down.code).toBe(8);
    expect(down.stderr).toMatch(
      /Cannot reach Proofmail at http:\/\/127\.0\.0\.1:\d+: connection refused\. Is the server running\? Check PROOFMAIL_URL\.\n$/,
    );

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
    expect(usage.stdout).toBe('');
  });

  it('--json prints a usage error as the failure object on stdout too (exit 2)', async () => {
    const noTo = await proofmail(['send', welcome, '--json'], env());
    expect(noTo.code).toBe(2);
    expect(JSON.parse(noTo.stdout)).toEqual({
      error: "required option '--to <addresses>' not specified",
      code: 'usage',
      exitCode: 2,
    });
    const badLevel = await proofmail(['check', welcome, '--fail-on', 'info', '--json'], env());
    expect(badLevel.code).toBe(2);
    expect(JSON.parse(badLevel.stdout)).toMatchObject({
      error: expect.stringContaining("option '--fail-on <level>' argument 'info' is invalid"),
      exitCode: 2,
    });
    expect(badLevel.stderr).toContain("argument 'info' is invalid");
  });

  it('a file over the size limits is named, with the limit (exit 4)', async () => {
    const big = file('big.html', `<p>${'x'.repeat(1024 * 1024)}</p>`);
    const over = await proofmail(['check', big], env());
    expect(over.code).toBe(4);
    expect(over.stderr).toContain('big.html: HTML content is too large: the limit is 1 MB');
    const huge = file('huge.html', `<p>${'x'.repeat(4 * 1024 * 1024)}</p>`);
    const request = await proofmail(['send', huge, '--to', 'a@example.com'], env());
    expect(request.code, request.stderr).toBe(4);
    expect(request.stderr).toContain('huge.html: too large: the server takes at most 1 MB of HTML.');
  });

  it("a request over the server's cap names the file over its own limit, or all of them when none is (exit 4)", async () => {
    const text = file('big.txt', 'x'.repeat(3.2 * 1024 * 1024));
    const bigText = await proofmail(['check', welcome, '--text', text], env());
    expect(bigText.code, bigText.stderr).toBe(4);
    expect(bigText.stderr).toContain(
      `proofmail: ${text}: too large: the server takes at most 1 MB of plain text.\n`,
    );
    // Quotes take two characters in JSON: 900 KB of each file is more than the server takes.
    const quotes = '"'.repeat(900 * 1024);
    const html = file('quotes.html', `<p>${quotes}</p>`);
    const quotedText = file('quotes.txt', quotes);
    const together = await proofmail(
      ['send', html, '--to', 'a@example.com', '--text', quotedText, '--json'],
      env(),
    );
    expect(together.code, together.stderr).toBe(4);
    expect(JSON.parse(together.stdout)).toEqual({
      error:
        `Too large as a whole: sending ${html} (901 KB) and ${quotedText} (900 KB) takes 3.5 MB of JSON, ` +
        'more than the server takes, although each file is within its own limit (in JSON, quotes, ' +
        'backslashes and line breaks take two characters). Make them smaller.',
      code: 'body_too_large',
      exitCode: 4,
    });
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

    // A key made before keys needed a verified address.
    const unverified = await createUser(app.db, { verified: false });
    const legacy = newApiKey();
    await insertApiKey(app.db, {
      userId: unverified.user.id,
      name: 'cli',
      keyHash: legacy.hash,
      prefix: legacy.prefix,
      now: new Date(),
    });
    const ran = await proofmail(['send', welcome, '--to', 'a@example.com'], env(legacy.key));
    expect(ran.code).toBe(7);
    expect(ran.stderr).toContain('To send emails you must verify your email first.');
  });
});

describe('a wrong PROOFMAIL_URL', () => {
  it('a redirect is not followed: it is named, with where it goes, and nothing goes there (exit 9)', async () => {
    // Where an http address sends its visitors: a server that answers every call as the app
    // would a GET of POST /api/email/send (the request fetch would make after a 301).
    const elsewhere = await startLoopbackServer((_req, res) => {
      res.writeHead(405, { 'content-type': 'application/json', allow: 'POST' });
      res.end(
        JSON.stringify({ error: 'Method not allowed: this address takes POST.', code: 'method_not_allowed' }),
      );
    });
    const redirector = await startLoopbackServer((req, res) => {
      res.writeHead(301, { location: `${elsewhere.url}${req.url ?? ''}` });
      res.end();
    });
    try {
      const ran = await proofmail(['send', welcome, '--to', 'a@example.com'], env(proKey, redirector.url));
      expect(ran.code).toBe(9);
      expect(ran.stderr).toContain(
        `proofmail: ${redirector.url} redirects /api/email/send to ${elsewhere.url}/api/email/send: redirects are ` +
          `not followed (the key goes only to PROOFMAIL_URL). Check PROOFMAIL_URL. If ${elsewhere.url} is your ` +
          'Proofmail server, set PROOFMAIL_URL to it.\n',
      );
      const json = await proofmail(['check', welcome, '--json'], env(proKey, redirector.url));
      expect(JSON.parse(json.stdout)).toMatchObject({ code: 'redirect', exitCode: 9 });
      expect(redirector.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
        'POST /api/email/send',
        'POST /api/email/preview',
      ]);
      expect(elsewhere.requests).toEqual([]);
    } finally {
      await redirector.close();
      await elsewhere.close();
    }
  });

  it("an address without the API's routes is said to be one (exit 9); the API's own 404 stays a refusal", async () => {
    // The app's pages (a path), an /api path the app has no route for, and a 405 of another server.
    const page = await proofmail(['send', welcome, '--to', 'a@example.com'], env(proKey, `${baseUrl}/app`));
    expect(page.code).toBe(9);
    expect(page.stderr).toContain(
      `proofmail: ${baseUrl}/app has no POST /api/email/send (it answered 404 "Page not found"). Check PROOFMAIL_URL.\n`,
    );
    const api = await proofmail(['check', welcome, '--json'], env(proKey, `${baseUrl}/api`));
    expect(api.code).toBe(9);
    expect(JSON.parse(api.stdout)).toEqual({
      error: `${baseUrl}/api has no POST /api/email/preview (it answered 404 "Not found"). Check PROOFMAIL_URL.`,
      code: 'not_proofmail',
      exitCode: 9,
    });
    const other = await startLoopbackServer((_req, res) => {
      res.writeHead(405, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Method Not Allowed' }));
    });
    try {
      const ran = await proofmail(['check', welcome], env(proKey, other.url));
      expect(ran.code).toBe(9);
      expect(ran.stderr).toContain(
        `${other.url} has no POST /api/email/preview (it answered 405). Check PROOFMAIL_URL.`,
      );
    } finally {
      await other.close();
    }
    // An email the key's owner does not have is the API's own 404: a refused --parent (exit 4).
    const unknown = '00000000-0000-4000-8000-000000000000';
    const missing = await proofmail(['send', welcome, '--to', 'a@example.com', '--parent', unknown], env());
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain(`--parent ${unknown}: you have no email with this id`);
  });
});

describe('a server that takes a request and gives no answer', () => {
  it('the connection closed after the whole request: exit 9, and a send may have gone out (not "cannot reach", exit 8)', async () => {
    const closing = await startLoopbackServer(async (req) => {
      for await (const _chunk of req); // the whole request, then nothing
      req.socket.destroy();
    });
    try {
      const sending = await proofmail(['send', welcome, '--to', 'a@example.com'], env(proKey, closing.url));
      expect(sending.code).toBe(9);
      expect(sending.stderr).toMatch(
        new RegExp(
          `^proofmail: No answer from Proofmail at ${closing.url}: the connection closed before the answer came\\. ` +
            `The email may have been sent: look for it in ${closing.url}/app/history before sending it again\\.\n$`,
          'm',
        ),
      );
      const checking = await proofmail(['check', welcome, '--json'], env(proKey, closing.url));
      expect(JSON.parse(checking.stdout)).toEqual({
        error: `No answer from Proofmail at ${closing.url}: the connection closed before the answer came.`,
        code: 'no_answer',
        exitCode: 9,
      });
      expect(closing.requests.map((r) => r.path)).toEqual(['/api/email/send', '/api/email/preview']);
    } finally {
      await closing.close();
    }
  });

  it("a gateway's own 502/503/504 is no answer either: a send may have gone out", async () => {
    // A page, nothing, or a gateway's own JSON (Kong, AWS API Gateway): none is the API's answer.
    const answers: [number, string, string][] = [
      [504, 'text/html', '<html><body><h1>504 Gateway Time-out</h1></body></html>'],
      [502, 'application/json', ''],
      [504, 'application/json', JSON.stringify({ message: 'The upstream server is timing out' })],
    ];
    let next = 0;
    const gateway = await startLoopbackServer(async (req, res) => {
      for await (const _chunk of req);
      const [status, type, body] = answers[next++]!;
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    });
    try {
      for (const [status] of answers) {
        const sending = await proofmail(
          ['send', welcome, '--to', 'a@example.com', '--json'],
          env(proKey, gateway.url),
        );
        expect(sending.code).toBe(9);
        expect(JSON.parse(sending.stdout)).toEqual({
          error:
            `A gateway in front of Proofmail at ${gateway.url} answered ${status} instead of the server. ` +
            `The email may have been sent: look for it in ${gateway.url}/app/history before sending it again.`,
          code: 'no_answer',
          exitCode: 9,
        });
      }
    } finally {
      await gateway.close();
    }
  });

  it('no answer in time is said so (exit 9), a send that may have gone out too', async () => {
    const silent = await startLoopbackServer(async (req) => {
      for await (const _chunk of req); // the whole request, and no answer
    });
    try {
      const timeout = { env: env(proKey, silent.url), requestTimeoutMs: 300 };
      const checking = await inProcess(['check', welcome, '--json'], timeout);
      expect(checking.code).toBe(9);
      expect(JSON.parse(checking.stdout)).toEqual({
        error: `No answer from Proofmail at ${silent.url}: no answer in time.`,
        code: 'no_answer',
        exitCode: 9,
      });
      const sending = await inProcess(['send', welcome, '--to', 'a@example.com'], timeout);
      expect(sending.code).toBe(9);
      expect(sending.stderr).toContain(
        `proofmail: No answer from Proofmail at ${silent.url}: no answer in time. The email may have been sent`,
      );
    } finally {
      await silent.close();
    }
  });
});

describe('a reader that closes the pipe early', () => {
  it('keeps the exit code of a failing checklist', async () => {
    const failing = file(
      'failing.html',
      '<!doctype html><html lang="en"><head><title>Hi</title></head><body>\n' +
        '<p><a href="http://example.com/page">Read the page about it</a></p>\n</body></html>',
    );
    for (const args of [
      ['send', failing, '--to', 'a@example.com', '--fail-on', 'warning'],
      ['check', failing, '--fail-on', 'warning', '--json'],
    ]) {
      const ran = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
        const child = spawn(process.execPath, [cli, ...args], {
          cwd: dir,
          env: { PATH: process.env.PATH ?? '', CI: 'true', ...env(proKey, proxy.url) },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        child.stdout.destroy(); // closed before the command writes anything: its writes fail (EPIPE)
        let stderr = '';
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => resolve({ code, stderr }));
      });
      expect(ran.code, ran.stderr).toBe(1);
      expect(ran.stderr).toContain('Failing: the checklist has');
    }
  });
});

describe('the checklist and --fail-on', () => {
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

  it('a refusal of the --data file names the file', async () => {
    const deep = file('deep.json', `{"a":${'['.repeat(20)}${']'.repeat(20)}}`);
    const ran = await proofmail(['check', welcome, '--data', deep, '--syntax', 'liquid', '--json'], env());
    expect(ran.code).toBe(4);
    expect(JSON.parse(ran.stdout)).toEqual({
      error: `${deep}: Sample data nests too deeply: the limit is 16 levels of objects and arrays.`,
      code: 'template_data_too_deep',
      exitCode: 4,
    });
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

  it('refuses a file with a NUL, or UTF-16 without a byte-order mark, naming the file and saying what it is (exit 3)', async () => {
    const bytes = (name: string, content: Buffer) => {
      fs.writeFileSync(path.join(dir, name), content);
      return path.join(dir, name);
    };
    const utf16 = (text: string) => Buffer.from(text, 'utf16le');
    const cases = [
      [
        bytes('le.html', utf16('<p>Hello</p>\n')),
        'looks like UTF-16 without a byte-order mark: save it as UTF-8.',
      ],
      [
        bytes('be.html', utf16('<p>Hello</p>\n').swap16()),
        'looks like UTF-16 without a byte-order mark: save it as UTF-8.',
      ],
      // Not UTF-8 at the é; its column counts the characters, not the zero bytes beside them.
      [
        bytes('le-accents.html', utf16('<p>x</p>\n<p>café</p>')),
        'not UTF-8 text (byte 0xE9 at line 2, column 7); it looks like UTF-16 without a byte-order mark: save it as UTF-8.',
      ],
      [
        bytes('nul.html', Buffer.from('<p>a</p>\n<p>b\0c</p>\n')),
        'not a text file (a NUL character at line 2, column 5). Check that it is the right file.',
      ],
    ] as const;
    const before = sent.length;
    for (const [name, message] of cases) {
      const refused = await proofmail(['check', name], env(proKey, proxy.url));
      expect(refused.code, refused.stderr).toBe(3);
      expect(refused.stderr).toBe(`proofmail: ${name}: ${message}\n`);
    }
    // A --text file is read the same way.
    const text = await proofmail(['send', welcome, '--to', 'a@example.com', '--text', cases[0][0]], env());
    expect(text.code).toBe(3);
    expect(text.stderr).toContain('le.html: looks like UTF-16 without a byte-order mark');
    expect(sent.length).toBe(before);
  });

  it('refuses an empty or blank file before asking the server (exit 3)', async () => {
    const empty = file('empty.html', '');
    const blank = file('blank.html', ' \n\t\r\n');
    const before = sent.length;
    const checked = await proofmail(['check', empty, '--json'], env(proKey, proxy.url));
    expect(checked.code).toBe(3);
    expect(JSON.parse(checked.stdout)).toEqual({
      error: `${empty}: the file is empty`,
      code: 'empty_file',
      exitCode: 3,
    });
    const sentBlank = await proofmail(['send', blank, '--to', 'a@example.com'], env(proKey, proxy.url));
    expect(sentBlank.code).toBe(3);
    expect(sentBlank.stderr).toBe(`proofmail: ${blank}: the file is empty\n`);
    expect(sent.length).toBe(before);
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

describe("the README's GitHub Actions step", () => {
  /** The `run:` script of the step with `id: proofmail` in README.md's example. */
  function readmeStep(): string {
    const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');
    const yaml = /```yaml\n(- name: Send a test[\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const lines = yaml.split('\n');
    const start = lines.indexOf('  run: |') + 1;
    expect(start, 'the step has a `run: |` block').toBeGreaterThan(0);
    const end = lines.findIndex((line, i) => i >= start && !line.startsWith('    '));
    return `${lines
      .slice(start, end)
      .map((line) => line.slice(4))
      .join('\n')}\n`;
  }

  /**
   * Runs the step as GitHub does (`bash --noprofile --norc -eo pipefail`), `npx proofmail` being
   * the real CLI, or a canned answer and exit code.
   */
  function runStep(stepEnv: Record<string, string>): Promise<{ code: number | null; outputs: string }> {
    const work = fs.mkdtempSync(path.join(dir, 'step-'));
    fs.mkdirSync(path.join(work, 'emails'));
    fs.copyFileSync(welcome, path.join(work, 'emails/welcome.html'));
    fs.mkdirSync(path.join(work, 'bin'));
    const npx = path.join(work, 'bin/npx');
    fs.writeFileSync(
      npx,
      [
        '#!/bin/sh',
        '[ "$1" = proofmail ] || exit 127',
        'shift',
        'if [ -n "$CANNED_EXIT" ]; then printf "%s\\n" "$CANNED_OUT"; exit "$CANNED_EXIT"; fi',
        `exec "${process.execPath}" "${cli}" "$@"`,
        '',
      ].join('\n'),
    );
    fs.chmodSync(npx, 0o755);
    const script = path.join(work, 'step.sh');
    fs.writeFileSync(script, readmeStep());
    const outputs = path.join(work, 'github-output');
    fs.writeFileSync(outputs, '');
    return new Promise((resolve, reject) => {
      const child = spawn('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], {
        cwd: work,
        env: {
          PATH: `${path.join(work, 'bin')}:${process.env.PATH ?? ''}`,
          HOME: process.env.HOME ?? '/tmp',
          CI: 'true',
          GITHUB_OUTPUT: outputs,
          ...stepEnv,
        },
        stdio: 'ignore',
      });
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, outputs: fs.readFileSync(outputs, 'utf8') }));
    });
  }

  const hasJq = spawnSync('jq', ['--version']).status === 0;

  it.skipIf(!hasJq)(
    'writes the link and the summary when the checklist fails, then fails with its exit code',
    async () => {
      const failing = await runStep({
        CANNED_EXIT: '1',
        CANNED_OUT: JSON.stringify({
          id: 'e1',
          url: 'http://127.0.0.1/app/email/e1',
          shareUrl: 'http://127.0.0.1/s/abc',
          summary: { errors: 1, warnings: 0, text: '1 error, 0 warnings' },
          checks: [],
        }),
      });
      expect(failing).toEqual({
        code: 1,
        outputs: 'share=http://127.0.0.1/s/abc\nsummary=1 error, 0 warnings\n',
      });

      const sentAndShared = await runStep(env());
      expect(sentAndShared.code).toBe(0);
      expect(sentAndShared.outputs).toMatch(
        new RegExp(`^share=${baseUrl}/s/[A-Za-z0-9_-]+\nsummary=\\d+ errors?, \\d+ warnings?\n$`),
      );
      // No share link (after the send, or none at all): `share` is empty, so the link is not posted.
      const noShare = await runStep(env(proKey, `${proxy.url}/no-share`));
      expect(noShare.code).toBe(9);
      expect(noShare.outputs).toMatch(/^share=\nsummary=\d+ errors?, \d+ warnings?\n$/);
      const down = await runStep(env(proKey, `http://127.0.0.1:${await freePort()}`));
      expect(down).toEqual({ code: 8, outputs: 'share=\nsummary=\n' });
    },
  );
});

describe('on a terminal', () => {
  /** The CLI's run() in this process, its stderr a terminal, outside CI. */
  const onTerminal = (argv: string[]) => inProcess(argv, { tty: true, env: env() });

  it('draws a spinner on stderr, and nothing at all with --json', async () => {
    const spinning = await onTerminal(['check', welcome]);
    expect(spinning.code, spinning.stderr).toBe(0);
    expect(spinning.stderr).toContain('\r\x1b[2K');
    const json = await onTerminal(['check', welcome, '--json']);
    expect(json.code).toBe(0);
    expect(json.stderr).toBe('');
    expect(JSON.parse(json.stdout).summary).toBeDefined();
  });
});

describe('proofmail --version', () => {
  it('prints the version of the package the command is in', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    const ran = await proofmail(['--version']);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stdout).toBe(`${version}\n`);
  });
});

describe('proofmail open', () => {
  it('prints the detail URL of an email', async () => {
    const ran = await proofmail(['open', 'abc-123'], { PROOFMAIL_URL: `${baseUrl}/` });
    expect(ran.code).toBe(0);
    expect(ran.stdout).toBe(`${baseUrl}/app/email/abc-123\n`);
  });
});
