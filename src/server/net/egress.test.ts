import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../../tests/support/free-port.ts';
import {
  selfSignedCert,
  startLoopbackServer,
  type LoopbackServer,
} from '../../../tests/support/loopback-http.ts';
import { isLoopbackAddress } from '../http/loopback.ts';
import { createEgress, EgressError, type DialEvent, type EgressOptions, type Resolver } from './egress.ts';

/**
 * The egress guard against loopback servers only. Refusals are proved by classification and by
 * injected DNS answers, with a dial spy showing that no socket was opened for them: no test here
 * ever sends a packet to a non-loopback address.
 */

/** A resolver answering from a table; counts its calls per name. */
function fakeDns(table: Record<string, string[] | (() => string[])>) {
  const calls: string[] = [];
  const resolver: Resolver = async (hostname) => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    const answers = typeof entry === 'function' ? entry() : entry;
    return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return { resolver, calls };
}

function guard(options: EgressOptions = {}) {
  const dials: DialEvent[] = [];
  const egress = createEgress({
    ...options,
    onDial: (d) => {
      dials.push(d);
      // A safety net for the tests themselves: a bug in the guard fails here, before any packet.
      if (!isLoopbackAddress(d.address)) throw new Error(`test would dial ${d.address}`);
    },
  });
  return { egress, dials };
}

async function failure(p: Promise<unknown>): Promise<EgressError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(EgressError);
    return err as EgressError;
  }
  throw new Error('expected the fetch to fail');
}

let server: LoopbackServer;

beforeAll(async () => {
  server = await startLoopbackServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const hops = /^\/hops\/(\d+)$/.exec(url.pathname);
    if (hops) {
      const n = Number(hops[1]);
      if (n === 0) return void res.end('arrived');
      res.writeHead(302, { location: `/hops/${n - 1}` }).end();
      return;
    }
    if (url.pathname === '/to') {
      res.writeHead(301, { location: url.searchParams.get('u') ?? '/' }).end();
      return;
    }
    if (url.pathname === '/slow-headers') {
      await new Promise((r) => setTimeout(r, 3_000));
      if (!res.destroyed) res.end('late');
      return;
    }
    if (url.pathname === '/slow-body') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => res.write('.'), 100);
      res.once('close', () => clearInterval(timer));
      return;
    }
    if (url.pathname === '/huge') {
      // 64 MB in 64 KB chunks, stopping as soon as the client goes away.
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      let sent = 0;
      const pump = () => {
        while (sent < 1024 && !res.destroyed) {
          sent++;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      pump();
      return;
    }
    if (url.pathname === '/declared-huge') {
      res.writeHead(200, { 'content-length': String(50 * 1024 * 1024) });
      res.write('x');
      return;
    }
    if (url.pathname === '/hold') {
      await new Promise((r) => setTimeout(r, 150));
      res.end('held');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'x-host': req.headers.host ?? '' });
    res.end(req.method === 'HEAD' ? undefined : `hello ${url.pathname}`);
  });
});

afterAll(async () => {
  await server.close();
});

describe('addresses in URLs', () => {
  const literals = [
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0x7f000001/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://0.0.0.0/',
    'http://10.0.0.1/',
    'http://[fd00::1]/',
    'http://[fe80::1]/',
  ];
  it.each(literals)('refuses %s without a DNS lookup or a dial', async (url) => {
    const dns = fakeDns({});
    const { egress, dials } = guard({ resolver: dns.resolver });
    const err = await failure(egress.fetch(url, { userId: 'u1' }));
    expect(err.kind).toBe('refused-address');
    expect(err.message).toMatch(/never contacted from here/);
    expect(err.detail.addressClass).toBeTruthy();
    expect(dns.calls).toEqual([]);
    expect(dials).toEqual([]);
  });

  it('refuses a name whose DNS answers mix public and private addresses, dialling nothing', async () => {
    const dns = fakeDns({
      'mixed.test': ['93.184.216.34', '10.1.2.3'],
      'mixed6.test': ['2606:4700:4700::1111', 'fd00::5'],
      'mapped.test': ['::ffff:192.168.0.1'],
      'metadata.test': ['169.254.169.254'],
    });
    const { egress, dials } = guard({ resolver: dns.resolver });
    for (const [host, cls] of [
      ['mixed.test', /private/],
      ['mixed6.test', /unique local/],
      ['mapped.test', /private .*inside an IPv4-mapped/],
      ['metadata.test', /link-local/],
    ] as const) {
      const err = await failure(egress.fetch(`https://${host}/`, { userId: 'u1' }));
      expect(err.kind).toBe('refused-address');
      expect(err.detail.addressClass).toMatch(cls);
    }
    expect(dials).toEqual([]);
  });

  it('refuses loopback answers unless the test-only allowance is on', async () => {
    const dns = fakeDns({ 'site.test': ['127.0.0.1'] });
    const strict = guard({ resolver: dns.resolver });
    const err = await failure(strict.egress.fetch(`http://site.test:${server.port}/`, { userId: 'u1' }));
    expect(err.detail.addressClass).toBe('loopback');
    expect(strict.dials).toEqual([]);

    const loose = guard({ resolver: dns.resolver, allowLoopback: true });
    const res = await loose.egress.fetch(`http://site.test:${server.port}/page`, { userId: 'u1' });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello /page');
    // The allowance is loopback only: a private answer stays refused.
    expect(loose.egress.check('10.0.0.1').allowed).toBe(false);
    expect(loose.egress.check('::ffff:127.0.0.1').allowed).toBe(true);
  });

  it('refuses other schemes, credentials and ports browsers refuse, before any lookup', async () => {
    const dns = fakeDns({ 'site.test': ['127.0.0.1'] });
    const { egress, dials } = guard({ resolver: dns.resolver, allowLoopback: true });
    expect((await failure(egress.fetch('ftp://site.test/', { userId: 'u1' }))).kind).toBe('refused-scheme');
    expect((await failure(egress.fetch('file:///etc/passwd', { userId: 'u1' }))).kind).toBe('refused-scheme');
    expect((await failure(egress.fetch('http://a:b@site.test/', { userId: 'u1' }))).kind).toBe(
      'refused-credentials',
    );
    expect((await failure(egress.fetch('http://site.test:25/', { userId: 'u1' }))).kind).toBe('refused-port');
    expect((await failure(egress.fetch('not a url', { userId: 'u1' }))).kind).toBe('invalid-url');
    expect(dns.calls).toEqual([]);
    expect(dials).toEqual([]);
  });

  it('says so when a name does not exist', async () => {
    const { egress, dials } = guard({ resolver: fakeDns({}).resolver });
    const err = await failure(egress.fetch('https://nowhere.test/', { userId: 'u1' }));
    expect(err.kind).toBe('dns');
    expect(err.message).toBe('The domain nowhere.test does not exist.');
    expect(dials).toEqual([]);
  });
});

describe('dialling the checked address', () => {
  it('asks DNS once per hop and dials the answer it checked, even when DNS would answer otherwise later', async () => {
    let n = 0;
    // A rebinding resolver: loopback (allowed in tests) first, a private address afterwards.
    const dns = fakeDns({ 'rebind.test': () => (n++ === 0 ? ['127.0.0.1'] : ['10.0.0.1']) });
    const { egress, dials } = guard({ resolver: dns.resolver, allowLoopback: true });
    const res = await egress.fetch(`http://rebind.test:${server.port}/x`, { userId: 'u1' });
    expect(res.status).toBe(200);
    expect(res.address).toBe('127.0.0.1');
    expect(dns.calls).toEqual(['rebind.test']);
    expect(dials).toEqual([{ hostname: 'rebind.test', address: '127.0.0.1', port: server.port, tls: false }]);
    // The name travels in the Host header only.
    expect(res.headers['x-host']).toBe(`rebind.test:${server.port}`);
  });

  it('uses the name for TLS (SNI and certificate) while dialling the checked address', async () => {
    const pair = selfSignedCert('secure.test');
    const tlsServer = await startLoopbackServer((_req, res) => void res.end('secret'), pair);
    try {
      const dns = fakeDns({ 'secure.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] });
      const trusted = guard({ resolver: dns.resolver, allowLoopback: true, ca: pair.cert });
      const res = await trusted.egress.fetch(`https://secure.test:${tlsServer.port}/`, { userId: 'u1' });
      expect(res.body.toString()).toBe('secret');
      expect(tlsServer.requests.at(-1)?.servername).toBe('secure.test');
      expect(trusted.dials.at(-1)).toMatchObject({ address: '127.0.0.1', tls: true });

      // The certificate does not name other.test: a TLS error, in plain words.
      const mismatch = await failure(
        trusted.egress.fetch(`https://other.test:${tlsServer.port}/`, { userId: 'u1' }),
      );
      expect(mismatch.kind).toBe('tls');
      // Without the CA the self-signed certificate is not trusted.
      const untrusted = guard({ resolver: dns.resolver, allowLoopback: true });
      const selfSigned = await failure(
        untrusted.egress.fetch(`https://secure.test:${tlsServer.port}/`, { userId: 'u1' }),
      );
      expect(selfSigned.kind).toBe('tls');
      expect(selfSigned.message).toMatch(/secure connection failed/);
    } finally {
      await tlsServer.close();
    }
  });

  it('reports a refused connection', async () => {
    const port = await freePort();
    const { egress } = guard({ allowLoopback: true });
    const err = await failure(egress.fetch(`http://127.0.0.1:${port}/`, { userId: 'u1' }));
    expect(err.kind).toBe('connection-refused');
    expect(err.message).toBe('The server refused the connection.');
  });
});

describe('redirects', () => {
  it('follows up to five redirects and records every hop', async () => {
    const { egress, dials } = guard({ allowLoopback: true });
    const res = await egress.fetch(`${server.url}/hops/5`, { userId: 'u1' });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('arrived');
    expect(res.redirects.map((r) => new URL(r.url).pathname)).toEqual([
      '/hops/5',
      '/hops/4',
      '/hops/3',
      '/hops/2',
      '/hops/1',
    ]);
    expect(res.redirects.every((r) => r.status === 302)).toBe(true);
    expect(dials).toHaveLength(6);
  });

  it('stops at the sixth redirect', async () => {
    const { egress, dials } = guard({ allowLoopback: true });
    const err = await failure(egress.fetch(`${server.url}/hops/6`, { userId: 'u1' }));
    expect(err.kind).toBe('too-many-redirects');
    expect(err.message).toBe('More than 5 redirects.');
    expect(dials).toHaveLength(6);
  });

  it.each([
    ['http://10.0.0.1/admin', /private/],
    ['http://169.254.169.254/latest/meta-data/', /link-local/],
    ['http://[::ffff:a9fe:a9fe]/', /link-local/],
    ['http://0xa9fea9fe/', /link-local/],
    ['http://internal.test/', /private/],
    ['http://[fd00::1]:8080/', /unique local/],
  ])('re-checks the hop to %s and refuses it before any connection to it', async (target, cls) => {
    const dns = fakeDns({ 'internal.test': ['192.168.10.10'], 'site.test': ['127.0.0.1'] });
    const { egress, dials } = guard({ resolver: dns.resolver, allowLoopback: true });
    const seen = server.requests.length;
    const start = `http://site.test:${server.port}/to?u=${encodeURIComponent(target)}`;
    const err = await failure(egress.fetch(start, { userId: 'u1' }));
    expect(err.kind).toBe('refused-address');
    expect(err.detail.addressClass).toMatch(cls);
    // One dial: the loopback test server. None to the refused address.
    expect(dials.map((d) => d.address)).toEqual(['127.0.0.1']);
    expect(server.requests.length).toBe(seen + 1);
  });

  it('refuses a redirect to another scheme or to an address with credentials', async () => {
    const { egress, dials } = guard({ allowLoopback: true });
    const toFile = await failure(
      egress.fetch(`${server.url}/to?u=${encodeURIComponent('file:///etc/passwd')}`, { userId: 'u1' }),
    );
    expect(toFile.kind).toBe('refused-scheme');
    const toCreds = await failure(
      egress.fetch(`${server.url}/to?u=${encodeURIComponent(`http://a:b@127.0.0.1:${server.port}/`)}`, {
        userId: 'u1',
      }),
    );
    expect(toCreds.kind).toBe('refused-credentials');
    expect(dials).toHaveLength(2);
  });
});

describe('time and size caps', () => {
  it('times out a server that does not answer', async () => {
    const { egress } = guard({ allowLoopback: true });
    const started = Date.now();
    const err = await failure(
      egress.fetch(`${server.url}/slow-headers`, { userId: 'u1', totalTimeoutMs: 300 }),
    );
    expect(err.kind).toBe('timeout');
    expect(err.message).toBe('The server took too long to answer.');
    expect(Date.now() - started).toBeLessThan(2_500);
  });

  it('times out a body that trickles in, counting from the start of the request', async () => {
    const { egress } = guard({ allowLoopback: true });
    const err = await failure(egress.fetch(`${server.url}/slow-body`, { userId: 'u1', totalTimeoutMs: 400 }));
    expect(err.kind).toBe('timeout');
  });

  it('stops reading a huge answer at the cap and cuts the connection', async () => {
    const { egress } = guard({ allowLoopback: true });
    const closedBefore = server.closedSockets;
    const err = await failure(egress.fetch(`${server.url}/huge`, { userId: 'u1', maxBytes: 256 * 1024 }));
    expect(err.kind).toBe('too-large');
    // The server sees its socket closed long before its 64 MB were sent.
    await expect.poll(() => server.closedSockets).toBeGreaterThan(closedBefore);

    const cut = await egress.fetch(`${server.url}/huge`, {
      userId: 'u1',
      maxBytes: 100_000,
      overflow: 'truncate',
    });
    expect(cut.truncated).toBe(true);
    expect(cut.body.length).toBe(100_000);
    expect(cut.bytesRead).toBeGreaterThan(100_000);
    expect(cut.bytesRead).toBeLessThan(100_000 + 1024 * 1024);
  });

  it('refuses a declared Content-Length over the cap without reading the body', async () => {
    const { egress } = guard({ allowLoopback: true });
    const err = await failure(egress.fetch(`${server.url}/declared-huge`, { userId: 'u1', maxBytes: 1024 }));
    expect(err.kind).toBe('too-large');
    const head = await egress.fetch(`${server.url}/declared-huge`, { userId: 'u1', body: 'discard' });
    expect(head.contentLength).toBe(50 * 1024 * 1024);
    expect(head.bytesRead).toBe(0);
  });
});

describe('rate and concurrency', () => {
  it('refuses a user over the per-minute rate, not the others, and lets them in the next minute', async () => {
    let now = 1_000_000_000_000;
    const { egress } = guard({ allowLoopback: true, perUserPerMinute: 3, now: () => now });
    for (let i = 0; i < 3; i++) await egress.fetch(`${server.url}/`, { userId: 'busy', method: 'HEAD' });
    const err = await failure(egress.fetch(`${server.url}/`, { userId: 'busy' }));
    expect(err.kind).toBe('rate-limited');
    expect((await egress.fetch(`${server.url}/`, { userId: 'calm' })).status).toBe(200);
    now += 60_000;
    expect((await egress.fetch(`${server.url}/`, { userId: 'busy' })).status).toBe(200);
  });

  it('holds at most the per-user and the global number of requests at once', async () => {
    const { egress } = guard({ allowLoopback: true, perUserConcurrency: 2, globalConcurrency: 3 });
    server.maxInFlight = 0;
    const one = Array.from({ length: 6 }, () => egress.fetch(`${server.url}/hold`, { userId: 'a' }));
    await Promise.all(one);
    expect(server.maxInFlight).toBe(2);

    server.maxInFlight = 0;
    const many = ['a', 'b', 'c', 'd'].flatMap((userId) =>
      Array.from({ length: 3 }, () => egress.fetch(`${server.url}/hold`, { userId })),
    );
    const results = await Promise.all(many);
    expect(results.every((r) => r.body.toString() === 'held')).toBe(true);
    expect(server.maxInFlight).toBe(3);
  });

  it('stops waiting for a slot when the caller gives up', async () => {
    const { egress } = guard({ allowLoopback: true, perUserConcurrency: 1 });
    const first = egress.fetch(`${server.url}/hold`, { userId: 'a' });
    const controller = new AbortController();
    const second = egress.fetch(`${server.url}/hold`, { userId: 'a', signal: controller.signal });
    controller.abort();
    expect((await failure(second)).kind).toBe('aborted');
    expect((await first).status).toBe(200);
  });
});
