import type { FastifyInstance } from 'fastify';

/**
 * Every /api answer carries accounts, tokens or a user's emails, or says whether they exist: no
 * browser, proxy or CDN may keep a copy. One hook for every route, errors included
 * (docs/architecture.md §6); a route that sets its own Cache-Control (GET /api/config) keeps it.
 */
export function registerNoStore(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.url.startsWith('/api') && !reply.hasHeader('cache-control')) {
      void reply.header('cache-control', 'no-store');
    }
    done(null, payload);
  });
}
