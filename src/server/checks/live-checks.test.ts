import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Finding } from '../../shared/contract/checks.ts';
import {
  selfSignedCert,
  startLoopbackServer,
  type LoopbackServer,
} from '../../../tests/support/loopback-http.ts';
import { isLoopbackAddress } from '../http/loopback.ts';
import { createEgress, type EgressOptions, type Resolver } from '../net/egress.ts';
import { checkImagesLive, sniffImage } from './live-images.ts';
import { shortUrl } from './live-fetch.ts';
import { checkLinksLive } from './live-links.ts';

/**
 * The live link and image checks through the egress guard, against loopback servers only: names
 * resolve through an injected table (site.test → 127.0.0.1, intranet.test → 10.0.0.7), and the
 * guard's loopback allowance is on, as in every test.
 */

let site: LoopbackServer;
let secure: LoopbackServer;
let egressOptions: EgressOptions;

const KB = 1024;

function table(): Resolver {
  return async (hostname) => {
    const answers: Record<string, string> = {
      'site.test': '127.0.0.1',
      'secure.test': '127.0.0.1',
      'intranet.test': '10.0.0.7',
    };
    const address = answers[hostname];
    if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return [{ address, family: 4 }];
  };
}

function ctx(options: Partial<EgressOptions> = {}, userId = 'u1') {
  return { egress: createEgress({ ...egressOptions, ...options }), userId };
}

const bySeverity = (findings: Finding[], severity: Finding['severity']) =>
  findings.filter((f) => f.severity === severity);

beforeAll(async () => {
  site = await startLoopbackServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const p = url.pathname;
    const hops = /^\/chain\/(\d+)$/.exec(p);
    if (hops) {
      const n = Number(hops[1]);
      if (n === 0) return void res.end('ok');
      return void res.writeHead(301, { location: `/chain/${n - 1}` }).end();
    }
    if (p === '/missing' || p === '/img/missing.png') return void res.writeHead(404).end();
    if (p === '/broken') return void res.writeHead(500).end();
    if (p === '/members') return void res.writeHead(403).end();
    // LinkedIn answers 999 to every automated request.
    if (p === '/in/ann') return void res.writeHead(999, 'Request denied').end();
    if (p === '/no-head') {
      if (req.method === 'HEAD') return void res.writeHead(405).end();
      return void res.end('fine with GET');
    }
    if (p === '/slow') {
      await new Promise((r) => setTimeout(r, 10_000));
      return void res.end();
    }
    const sized = /^\/img\/(\d+)k\.(png|html|bin)$/.exec(p);
    if (sized) {
      const bytes = Number(sized[1]) * KB;
      // .bin: served with S3's generic type, a PNG by its first bytes when ?png is asked.
      const type = { png: 'image/png', html: 'text/html; charset=utf-8', bin: 'binary/octet-stream' }[
        sized[2]!
      ]!;
      const chunked = url.searchParams.has('chunked');
      // Chunked answers carry no Content-Length: the check must count the bytes itself.
      res.writeHead(
        200,
        chunked ? { 'content-type': type } : { 'content-type': type, 'content-length': bytes },
      );
      if (req.method === 'HEAD') return void res.end();
      const chunk = Buffer.alloc(16 * KB, 0x89);
      if (url.searchParams.has('png')) Buffer.from('\x89PNG\r\n\x1a\n', 'latin1').copy(chunk);
      let sent = 0;
      const pump = () => {
        while (sent < bytes && !res.destroyed) {
          const n = Math.min(chunk.length, bytes - sent);
          sent += n;
          if (!res.write(chunk.subarray(0, n))) return void res.once('drain', pump);
        }
        res.end();
      };
      return pump();
    }
    res.end('ok');
  });
  const pair = selfSignedCert('secure.test');
  secure = await startLoopbackServer((req, res) => {
    const target = new URL(req.url ?? '/', 'https://x').searchParams.get('to');
    if (target) return void res.writeHead(302, { location: target }).end();
    res.end('secure ok');
  }, pair);
  egressOptions = {
    resolver: table(),
    allowLoopback: true,
    ca: pair.cert,
    onDial: (d) => {
      if (!isLoopbackAddress(d.address)) throw new Error(`test would dial ${d.address}`);
    },
  };
});

afterAll(async () => {
  await site.close();
  await secure.close();
});

describe('checkLinksLive', () => {
  it('checks each distinct http(s) link once and says all work', async () => {
    const before = site.requests.length;
    const s = `http://site.test:${site.port}`;
    const findings = await checkLinksLive(
      [
        { url: `${s}/a`, element: '<a href="/a">', line: 3 },
        { url: `${s}/a#section` },
        { url: `${s}/a` },
        { url: `${s}/b` },
        { url: 'mailto:someone@example.com' },
        { url: '#' },
        { url: 'not a url' },
      ],
      ctx(),
    );
    expect(findings).toEqual([
      { severity: 'info', message: 'All 2 links work.', hint: 'Checked live just now.' },
    ]);
    expect(site.requests.slice(before).map((r) => `${r.method} ${r.path}`)).toEqual(['HEAD /a', 'HEAD /b']);
  });

  it('reports broken links with the element and line, and asks again with GET when HEAD is refused', async () => {
    const s = `http://site.test:${site.port}`;
    const findings = await checkLinksLive(
      [
        { url: `${s}/missing`, element: '<a href="/missing">', line: 12 },
        { url: `${s}/broken` },
        { url: `${s}/members` },
        { url: `${s}/in/ann` },
        { url: `${s}/no-head` },
        { url: `http://nowhere.test:${site.port}/` },
      ],
      ctx(),
    );
    expect(bySeverity(findings, 'error').map((f) => f.message)).toEqual([
      `Broken link: ${s}/missing answers 404 (not found).`,
      `Broken link: ${s}/broken answers 500 (server error).`,
      'Broken link: The domain nowhere.test does not exist.',
    ]);
    expect(findings[0]).toMatchObject({ element: '<a href="/missing">', line: 12 });
    expect(bySeverity(findings, 'warning').map((f) => f.message)).toEqual([
      `${s}/members answers 403 (access denied) to our check.`,
      `${s}/in/ann answers 999 (request denied) to our check.`,
    ]);
    // /no-head answered GET: no finding for it.
    expect(findings.some((f) => f.message.includes('/no-head'))).toBe(false);
  });

  it('warns (not errs) that a link to a private address cannot be checked from here, without dialling it', async () => {
    const dials: string[] = [];
    const findings = await checkLinksLive(
      [{ url: 'http://intranet.test/wiki' }, { url: 'http://192.168.1.1/admin' }],
      ctx({ onDial: (d) => dials.push(d.address) }),
    );
    expect(findings.map((f) => [f.severity, f.message])).toEqual([
      [
        'warning',
        'This link cannot be checked from here: http://intranet.test/wiki points to a private (RFC 1918) address.',
      ],
      [
        'warning',
        'This link cannot be checked from here: http://192.168.1.1/admin points to a private (RFC 1918) address.',
      ],
    ]);
    expect(dials).toEqual([]);
  });

  it('reports redirects: info for a short chain, warning from 3 hops and for a detour through http:', async () => {
    const s = `http://site.test:${site.port}`;
    const insecureHop = `https://secure.test:${secure.port}/?to=${encodeURIComponent(`${s}/chain/0`)}`;
    const findings = await checkLinksLive(
      [{ url: `${s}/chain/1` }, { url: `${s}/chain/3` }, { url: insecureHop }, { url: `${s}/chain/6` }],
      ctx(),
    );
    expect(findings.map((f) => [f.severity, f.message])).toEqual([
      ['info', `${s}/chain/1 redirects once, to ${s}/chain/0.`],
      ['warning', `${s}/chain/3 redirects 3 times before it arrives at ${s}/chain/0.`],
      [
        'warning',
        `${shortUrl(insecureHop)} redirects to an insecure http: address on its way to ${s}/chain/0.`,
      ],
      ['error', `${s}/chain/6 redirects more than 5 times.`],
    ]);
  });

  it('reports a slow link as a warning and the links left when the caller stops', async () => {
    const s = `http://site.test:${site.port}`;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 500);
    const started = Date.now();
    const links = [`${s}/slow`, ...Array.from({ length: 7 }, (_, i) => `${s}/slow?${i}`)].map((url) => ({
      url,
    }));
    const findings = await checkLinksLive(links, { ...ctx(), signal: controller.signal });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(findings).toEqual([
      {
        severity: 'info',
        message: '8 links were not checked in time.',
        hint: 'Run the live check again to check the rest.',
      },
    ]);
  });

  it('stops at the per-user rate and says how many links were left', async () => {
    const s = `http://site.test:${site.port}`;
    const links = Array.from({ length: 5 }, (_, i) => ({ url: `${s}/r${i}` }));
    const findings = await checkLinksLive(links, ctx({ perUserPerMinute: 3 }));
    expect(findings.at(-1)).toMatchObject({
      severity: 'info',
      message: '2 links were not checked: too many outside requests in the last minute.',
    });
  });
});

describe('checkImagesLive', () => {
  it('weighs images by Content-Length or by counting, warns over 200 KB and errs over 1 MB', async () => {
    const s = `http://site.test:${site.port}`;
    const before = site.requests.length;
    const { findings, totalBytes } = await checkImagesLive(
      [
        { src: `${s}/img/50k.png`, element: '<img src="50k.png">', line: 4 },
        { src: `${s}/img/300k.png?chunked`, line: 5 },
        { src: `${s}/img/4000k.png?chunked`, line: 6 },
        { src: `${s}/img/50k.png` },
        { src: 'data:image/png;base64,AAAA' },
      ],
      ctx(),
    );
    expect(findings.map((f) => [f.severity, f.message, f.line])).toEqual([
      ['warning', `${s}/img/300k.png?chunked weighs 300 KB, over 200 KB.`, 5],
      [
        'error',
        `${s}/img/4000k.png?chunked weighs more than 1.0 MB, over the 1.0 MB limit for one image.`,
        6,
      ],
      ['warning', 'The images weigh more than 1.3 MB in total (3 images), over 1.0 MB.', undefined],
    ]);
    // The 4,000 KB image counts as the 1 MB limit it crossed, whatever chunk crossed it.
    expect(totalBytes).toBe((50 + 300 + 1024) * KB);
    // 50k.png once, by HEAD only; the chunked ones needed a GET.
    expect(
      site.requests
        .slice(before)
        .filter((r) => r.path === '/img/50k.png')
        .map((r) => r.method),
    ).toEqual(['HEAD']);
  });

  it('reports broken images and answers that are not images; a light set is an info', async () => {
    const s = `http://site.test:${site.port}`;
    const { findings, totalBytes } = await checkImagesLive(
      [{ src: `${s}/img/missing.png` }, { src: `${s}/img/2k.html` }, { src: `${s}/img/10k.png` }],
      ctx(),
    );
    expect(findings.map((f) => [f.severity, f.message])).toEqual([
      ['error', `Broken image: ${s}/img/missing.png answers 404 (not found).`],
      ['warning', `${s}/img/2k.html answers text/html, not an image.`],
      ['info', 'The images weigh 12 KB in total (2 images).'],
    ]);
    expect(totalBytes).toBe(12 * KB);
  });

  it('knows the image formats by their first bytes', () => {
    const of = (bytes: string) => sniffImage(Buffer.from(bytes, 'latin1'))?.name;
    expect(of('\xff\xd8\xff\xe0\x00\x10JFIF')).toBe('JPEG');
    expect(of('GIF89a\x01\x00')).toBe('GIF');
    expect(of('RIFF\x24\x00\x00\x00WEBPVP8 ')).toBe('WebP');
    expect(of('\x00\x00\x00\x1cftypavif')).toBe('AVIF');
    expect(of('<!doctype html>')).toBeUndefined();
    expect(of('')).toBeUndefined();
  });

  it('tells an image served under a generic type by its first bytes: an info, not a warning', async () => {
    const s = `http://site.test:${site.port}`;
    const { findings } = await checkImagesLive(
      [
        { src: `${s}/img/3k.bin?png` }, // Content-Length given: a GET of its first bytes
        { src: `${s}/img/4k.bin?png&chunked` }, // read whole anyway
        { src: `${s}/img/5k.bin` }, // no image format at all
      ],
      ctx(),
    );
    expect(findings.map((f) => [f.severity, f.message])).toEqual([
      ['info', `${s}/img/3k.bin?png is a PNG image served as binary/octet-stream.`],
      ['info', `${s}/img/4k.bin?png&chunked is a PNG image served as binary/octet-stream.`],
      ['warning', `${s}/img/5k.bin answers binary/octet-stream, not an image.`],
      ['info', 'The images weigh 12 KB in total (3 images).'],
    ]);
  });
});
