import type { FastifyInstance } from 'fastify';

/**
 * Answers in this scope carry tokens or account data: no browser, proxy or CDN may keep a copy.
 * A route that sets its own Cache-Control keeps it.
 */
export function noStoreAnswers(scope: FastifyInstance): void {
  scope.addHook('onSend', async (_request, reply, payload) => {
    if (!reply.hasHeader('Cache-Control')) void reply.header('Cache-Control', 'no-store');
    return payload;
  });
}
