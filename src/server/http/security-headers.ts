import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';

/**
 * Security headers on every response (docs/architecture.md §6). User HTML is only ever shown in
 * sandboxed frames holding a blob: document made by the app, which inherit this policy: scripts
 * never run, but email markup needs inline styles, remote images and the https style sheets that
 * carry web fonts, so style-src allows 'unsafe-inline' and https:, img-src any http(s) origin, and
 * frame-src blob: (docs/decisions/0045-preview-frame-same-origin-without-scripts.md).
 *
 * The set is computed once and written with the raw setHeader: the same headers helmet would
 * send, at a fraction of the per-request cost (measured: helmet halved an empty route's
 * throughput). Route headers set later through `reply.header` take precedence.
 */
/**
 * Powerful browser features the app never uses, off for our pages and every frame in them
 * (docs/decisions/0037-response-headers-and-framework-errors.md). Clipboard writing (Copy link) needs no policy.
 * Only features Chromium knows: an unknown one ("bluetooth") is a console warning on every page
 * (tests/e2e/every-route.test.ts).
 */
const PERMISSIONS_POLICY = [
  'accelerometer=()',
  'autoplay=()',
  'browsing-topics=()',
  'camera=()',
  'display-capture=()',
  'encrypted-media=()',
  'fullscreen=()',
  'geolocation=()',
  'gyroscope=()',
  'hid=()',
  'idle-detection=()',
  'local-fonts=()',
  'magnetometer=()',
  'microphone=()',
  'midi=()',
  'payment=()',
  'picture-in-picture=()',
  'publickey-credentials-get=()',
  'screen-wake-lock=()',
  'serial=()',
  'usb=()',
  'xr-spatial-tracking=()',
].join(', ');

export function securityHeaders(config: Config): Record<string, string> {
  const csp = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline' https:",
    "img-src 'self' data: https: http:",
    "font-src 'self' data: https:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "frame-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return {
    'content-security-policy': csp,
    'permissions-policy': PERMISSIONS_POLICY,
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'origin-agent-cluster': '?1',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'x-content-type-options': 'nosniff',
    'x-dns-prefetch-control': 'off',
    'x-download-options': 'noopen',
    'x-frame-options': 'DENY',
    'x-permitted-cross-domain-policies': 'none',
    'x-xss-protection': '0',
    ...(config.publicUrl.startsWith('https:')
      ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' }
      : {}),
  };
}

/**
 * The headers of an API answer (every path under /api/): data, never a document a browser should
 * render, so the policy is OWASP's for REST services: nothing may load or run in it, nothing may
 * frame it, no other origin may read it. The document-only headers of the app's pages
 * (Permissions-Policy, COOP, Origin-Agent-Cluster, DNS prefetch, the legacy IE ones) do nothing
 * for an answer that is never a document, and would be ~60% of every answer's bytes
 * (docs/decisions/0091-api-answer-headers.md).
 */
export function apiSecurityHeaders(config: Config): Record<string, string> {
  return {
    'content-security-policy':
      "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'cross-origin-resource-policy': 'same-origin',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    ...(config.publicUrl.startsWith('https:')
      ? { 'strict-transport-security': 'max-age=31536000; includeSubDomains' }
      : {}),
  };
}

/** Whether a request URL is the API's (the path, not a query string, decides). */
export function isApiUrl(url: string): boolean {
  return url.startsWith('/api/') || url === '/api' || url.startsWith('/api?');
}

export function registerSecurityHeaders(app: FastifyInstance, config: Config): void {
  const pages = Object.entries(securityHeaders(config));
  const api = Object.entries(apiSecurityHeaders(config));
  app.addHook('onRequest', (request, reply, done) => {
    for (const [name, value] of isApiUrl(request.url) ? api : pages) reply.raw.setHeader(name, value);
    done();
  });
}

/** Public share pages are for one client, not for search engines or referrer logs. */
export function markPrivatePublicPage(headers: { header: (k: string, v: string) => unknown }): void {
  headers.header('X-Robots-Tag', 'noindex, nofollow');
  headers.header('Referrer-Policy', 'no-referrer');
}
