import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  mailboxClearResponse,
  mailboxMessageParams,
  mailboxMessageResponse,
  mailboxQuery,
  mailboxResponse,
  type CaughtMessage,
  type CaughtMessageDetail,
} from '../../../shared/contract/dev-mailbox.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { PUBLIC_ROUTE } from '../../http/auth.ts';
import { notFound } from '../../http/errors.ts';
import { isLoopbackAddress } from '../../http/loopback.ts';
import type { CaughtMailListRow, CaughtMailRow } from '../../mail/caught-mail.repo.ts';
import { clearMailbox, getMailboxMessage, listMailbox } from './dev-mailbox.service.ts';

/**
 * The local mail catcher's mailbox: GET /api/dev/mailbox (+ one message, + clear) and the SPA
 * page /dev/mailbox. It holds every verification and reset link, so it answers only while the
 * catcher runs, only when the operator's settings allow it (config.devMailbox: by default only
 * when PUBLIC_URL is a loopback address), and only to a client on this machine: the TCP peer
 * *and* the proxy-aware client address (request.ip, which follows TRUST_PROXY) must both be
 * loopback, so a reverse proxy on this machine does not make every visitor local
 * (docs/decisions/0029-dev-mailbox-local-clients-only.md). Anyone else gets the plain 404.
 */

function toMessage(row: CaughtMailListRow): CaughtMessage {
  return {
    id: row.id,
    from: row.from_header,
    to: row.to_addresses,
    subject: row.subject,
    html: row.html,
    text: row.text,
    receivedAt: row.received_at.toISOString(),
  };
}

function toDetail(row: CaughtMailRow): CaughtMessageDetail {
  return {
    ...toMessage(row),
    messageId: row.message_id,
    size: row.size,
    headers: row.headers.map((h) => ({ name: h.name, value: h.value })),
  };
}

export function registerDevMailboxRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // onRequest runs before body/params validation, so outsiders learn nothing, not even a 400.
  const open = Boolean(deps.mailCatcher) && deps.config.devMailbox;
  const loopbackOnly = async (request: FastifyRequest) => {
    if (!open || !isLoopbackAddress(request.socket.remoteAddress) || !isLoopbackAddress(request.ip)) {
      throw notFound(request.url.startsWith('/api') ? 'Not found' : 'Page not found');
    }
  };

  r.get(
    '/api/dev/mailbox',
    {
      config: PUBLIC_ROUTE,
      onRequest: loopbackOnly,
      schema: { querystring: mailboxQuery, response: { 200: mailboxResponse } },
    },
    async (request) => {
      const { bodies, ...query } = request.query;
      const rows = await listMailbox(deps.db, { ...query, bodies: bodies !== 'none' });
      return { messages: rows.map(toMessage) };
    },
  );

  r.get(
    '/api/dev/mailbox/:id',
    {
      config: PUBLIC_ROUTE,
      onRequest: loopbackOnly,
      schema: { params: mailboxMessageParams, response: { 200: mailboxMessageResponse } },
    },
    async (request) => {
      const row = await getMailboxMessage(deps.db, request.params.id);
      if (!row) throw notFound('Message not found');
      return { message: toDetail(row) };
    },
  );

  r.delete(
    '/api/dev/mailbox',
    { config: PUBLIC_ROUTE, onRequest: loopbackOnly, schema: { response: { 200: mailboxClearResponse } } },
    async () => ({ deleted: await clearMailbox(deps.db) }),
  );

  // The page itself: loopback clients get the SPA (via the history fallback), others the 404.
  r.get('/dev/mailbox', { onRequest: loopbackOnly }, (_request, reply) => reply.callNotFound());
}
