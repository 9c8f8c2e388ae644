import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { user as userSchema } from '../../../shared/contract/auth.ts';
import {
  deleteVersionsResponse,
  emailIdParams,
  emailListResponse,
  email as emailSchema,
  listEmailsQuery,
  MAX_HTML_BYTES,
  messageQuery,
  previewEmailRequest,
  previewEmailResponse,
  sendEmailRequest,
  sendEmailResponse,
  usage as usageSchema,
} from '../../../shared/contract/email.ts';
import { toUserResponse } from '../../accounts/user-view.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { requireUser, API_KEY_ROUTE } from '../../http/auth.ts';
import { getEmail, listHistory, removeEmail, removeThread, usageFor } from './email.service.ts';
import { deliveredMessage } from './message.service.ts';
import { previewEmail } from './preview.service.ts';
import { sendTestEmail } from './send.service.ts';
import { MAX_WAITING_TURNS } from '../../db/connection-turns.ts';
import { registerShareRoutes } from './share.routes.ts';

/** What a client of the history should expect from a search besides the default error answer. */
const SEARCH_ERRORS: Record<number, string> = {
  422: `The search ran longer than its time budget (\`search_timeout\`): search for something more distinctive.`,
  429: `More than ${MAX_WAITING_TURNS} of your searches already waiting behind your running one (\`too_many_searches\`, with \`Retry-After\`).`,
};

/** Sending, usage, history, sharing and the public view (docs/spec.md §7 email calls). */
export function registerEmailRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/api/email/send',
    {
      config: API_KEY_ROUTE,
      // Room for 1 MB of HTML in JSON (escaping can double it); the service enforces 1 MB itself.
      bodyLimit: MAX_HTML_BYTES * 3,
      schema: { body: sendEmailRequest, response: { 200: sendEmailResponse } },
    },
    async (request) => {
      const user = requireUser(request);
      return sendTestEmail(deps, user, request.body);
    },
  );

  r.post(
    '/api/email/preview',
    {
      config: API_KEY_ROUTE,
      bodyLimit: MAX_HTML_BYTES * 3,
      schema: { body: previewEmailRequest, response: { 200: previewEmailResponse } },
    },
    async (request, reply) => previewEmail(deps, requireUser(request), request.body, reply),
  );

  r.get(
    '/api/email/:id/message.eml',
    // The answer is the message itself (message/rfc822), not JSON: no response schema to serialise with.
    {
      config: { ...API_KEY_ROUTE, produces: 'message/rfc822' },
      schema: { params: emailIdParams, querystring: messageQuery },
    },
    async (request, reply) => {
      const { id } = request.params;
      const { message } = await deliveredMessage(deps, requireUser(request).id, id, request.query.delivery);
      return reply
        .header('Content-Type', 'message/rfc822')
        .header('Content-Disposition', `attachment; filename="email-${id}.eml"`)
        .header('Cache-Control', 'no-store')
        .send(message);
    },
  );

  r.get(
    '/api/user/usage',
    {
      config: API_KEY_ROUTE,
      schema: { response: { 200: z.object({ ok: z.literal(true), user: userSchema, usage: usageSchema }) } },
    },
    async (request) => {
      const user = requireUser(request);
      return { ok: true as const, user: toUserResponse(user), usage: await usageFor(deps, user) };
    },
  );

  r.get(
    '/api/email',
    {
      config: { ...API_KEY_ROUTE, errorAnswers: SEARCH_ERRORS },
      schema: { querystring: listEmailsQuery, response: { 200: emailListResponse } },
    },
    async (request) => listHistory(deps, requireUser(request), request.query),
  );

  r.get(
    '/api/email/:id',
    { config: API_KEY_ROUTE, schema: { params: emailIdParams, response: { 200: emailSchema } } },
    async (request) => getEmail(deps, requireUser(request).id, request.params.id),
  );

  r.delete(
    '/api/email/:id',
    {
      config: API_KEY_ROUTE,
      schema: { params: emailIdParams, response: { 200: z.object({ ok: z.literal(true) }) } },
    },
    async (request) => {
      await removeEmail(deps, requireUser(request).id, request.params.id);
      return { ok: true as const };
    },
  );

  r.delete(
    '/api/email/:id/versions',
    {
      config: { ...API_KEY_ROUTE, summary: 'Delete every version of the email (its whole thread)' },
      schema: { params: emailIdParams, response: { 200: deleteVersionsResponse } },
    },
    async (request) => ({
      ok: true as const,
      deleted: await removeThread(deps, requireUser(request).id, request.params.id),
    }),
  );

  registerShareRoutes(app, deps);
}
