import fs from 'node:fs';
import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { notFound } from './errors.ts';
import { markPrivatePublicPage } from './security-headers.ts';

/**
 * Serves the built SPA: hashed assets cached for a year, every other GET that wants HTML gets
 * index.html (history fallback), and unknown /api/* paths answer the JSON 404.
 */
export async function registerSpa(app: FastifyInstance, webRoot: string | undefined): Promise<void> {
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
    const wantsHtml = (request.headers.accept ?? '').includes('text/html');
    const isApi = url === '/api' || url.startsWith('/api/') || url.startsWith('/api?');
    if (!isApi && hasBuild && (request.method === 'GET' || request.method === 'HEAD') && wantsHtml) {
      if (url.startsWith('/s/')) markPrivatePublicPage(reply);
      return reply
        .header('Cache-Control', 'no-cache')
        .type('text/html; charset=utf-8')
        .sendFile('index.html');
    }
    if (!isApi && !hasBuild && request.method === 'GET' && wantsHtml) {
      return reply
        .status(503)
        .type('text/plain; charset=utf-8')
        .send('The web app is not built. Run `npm run build`, or `npm run dev` for development.');
    }
    throw notFound(isApi ? 'Not found' : 'Page not found');
  });
}
