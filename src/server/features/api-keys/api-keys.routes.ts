import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  apiKeyIdParams,
  apiKeyListResponse,
  createApiKeyRequest,
  createApiKeyResponse,
  revokeApiKeyResponse,
} from '../../../shared/contract/api-keys.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { requireSession } from '../../http/auth.ts';
import { enforceRateLimits, rateRule } from '../../http/rate-limit.ts';
import { createApiKey, listKeys, revokeApiKey } from './api-keys.service.ts';

/** Creating and revoking keys, per user: plenty for a person, a wall for a script. */
const KEY_CHANGES_RULE = rateRule('api-key-changes', 30, 10 * 60_000, 'API key changes');

/**
 * /api/keys: the signed-in user's personal API keys. Session only (no API_KEY_ROUTE): a key can
 * neither see nor make nor revoke keys.
 */
export function registerApiKeyRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  /** Creating and revoking keys: a session (never a key), under the per-user rate of key changes. */
  const keyChanger = async (request: FastifyRequest, reply: FastifyReply) => {
    const auth = requireSession(request);
    await enforceRateLimits(
      deps.db,
      reply,
      [{ rule: KEY_CHANGES_RULE, subject: auth.user.id }],
      deps.clock.now(),
    );
    return auth;
  };

  r.post(
    '/api/keys',
    { schema: { body: createApiKeyRequest, response: { 200: createApiKeyResponse } } },
    async (request, reply) => {
      return createApiKey(deps, await keyChanger(request, reply), request.body.name);
    },
  );

  r.get('/api/keys', { schema: { response: { 200: apiKeyListResponse } } }, async (request) => ({
    items: await listKeys(deps, requireSession(request).user.id),
  }));

  r.delete(
    '/api/keys/:id',
    { schema: { params: apiKeyIdParams, response: { 200: revokeApiKeyResponse } } },
    async (request, reply) => {
      const { user } = await keyChanger(request, reply);
      await revokeApiKey(deps, user.id, request.params.id);
      return { ok: true as const };
    },
  );
}
