import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { notFound } from './errors.ts';
import { methodNotAllowed, type MethodTable } from './method-not-allowed.ts';
import { markPrivatePublicPage } from './security-headers.ts';

/**
 * Whether the client takes a page (docs/decisions/0114-answers-that-say-what-the-api-takes.md):
 * a browser's navigation names text/html; curl, link checkers, uptime monitors and chat apps that
 * unfurl a share link send `*\/*` or no Accept at all. Only a client that names what it takes and
 * leaves HTML out (`application/json`, `text/html;q=0`) gets the JSON 404.
 */
export function acceptsPage(accept: string | undefined): boolean {
  if (!accept?.trim()) return true;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';').map((p) => p.trim().toLowerCase());
    if (!['text/html', 'application/xhtml+xml', 'text/*', '*/*'].includes(type)) return false;
    const q = params.find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * A path that names a file, not a page: the build's assets, or a last segment with an extension
 * (/favicon.ico, /robots.txt). A file that is not there is a 404 whoever asks: a browser asks for
 * a script with `*\/*`, and a missing chunk of an older build answered with the page would fail as
 * a script with the wrong type instead of as the missing file it is. No page's path has a dot.
 */
export function isFilePath(url: string): boolean {
  const query = url.indexOf('?');
  const pathname = query === -1 ? url : url.slice(0, query);
  return pathname.startsWith('/assets/') || /\.[A-Za-z0-9]+$/.test(pathname.slice(pathname.lastIndexOf('/')));
}

/**
 * Serves the built SPA: hashed assets cached for a year, every other GET for a page gets
 * index.html (history fallback; the web app's router shows its own not-found page), and unknown
 * /api/* paths answer the JSON 404, or the 405 of an address that takes other methods.
 */
export async function registerSpa(
  app: FastifyInstance,
  webRoot: string | undefined,
  methods: Pick<MethodTable, 'allowedMethods'>,
): Promise<void> {
  const indexFile = webRoot ? path.join(webRoot, 'index.html') : undefined;
  const hasBuild = indexFile !== undefined && fs.existsSync(indexFile);
  if (hasBuild) {
    await app.register(fastifyStatic, {
      root: webRoot!,
      wildcard: false,
      index: false,
      cacheControl: false, // set per file below
      setHeaders: (res, filePath) => {
        const immutable = filePath.includes(`${path.sep}assets${path.sep}`);
        res.setHeader('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
      },
    });
  }

  app.setNotFoundHandler((request, reply) => {
    const url = request.url;
    const isApi = url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
    if (isApi) {
      const allow = methods.allowedMethods(url);
      throw allow === undefined ? notFound('Not found') : methodNotAllowed(reply, allow);
    }
    const isPage =
      (request.method === 'GET' || request.method === 'HEAD') &&
      !isFilePath(url) &&
      acceptsPage(request.headers.accept);
    if (isPage && hasBuild) {
      if (url.startsWith('/s/')) markPrivatePublicPage(reply);
      return reply
        .header('Cache-Control', 'no-cache')
        .type('text/html; charset=utf-8')
        .sendFile('index.html');
    }
    if (isPage) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The web app is not built. Run `npm run build`, or `npm run dev` for development.');
    }
    throw notFound('Page not found');
  });
}
