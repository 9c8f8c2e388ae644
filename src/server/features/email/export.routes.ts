import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { emailIdParams } from '../../../shared/contract/email.ts';
import {
  compareParams,
  pixelDiffResponse,
  renderQuery,
  thumbnailQuery,
} from '../../../shared/contract/render.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { API_KEY_ROUTE, requireUser } from '../../http/auth.ts';
import { enforceRateLimits, rateRule } from '../../http/rate-limit.ts';
import type { RenderedPage } from '../../render/render-page.ts';
import { comparePixels, renderSent, requireRenderer, sentHtml, thumbnail } from './export.service.ts';
import { deliveredMessage } from './message.service.ts';

/** Renders per user (a pixel comparison is two): plenty for a person, a wall for a script. */
export const RENDER_RATE_RULE = rateRule('render-user', 120, 10 * 60_000, 'renders');

/**
 * Exports of an email as sent (PNG, PDF, its HTML part, its message) and the pixel comparison of
 * two emails (docs/architecture.md "The renderer"). Owner-scoped like every email route; open to
 * API keys like the other email reads.
 */
export function registerExportRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const renderLimit = (reply: FastifyReply, userId: string, hits = 1) =>
    enforceRateLimits(
      deps.db,
      reply,
      Array.from({ length: hits }, () => ({ rule: RENDER_RATE_RULE, subject: userId })),
      deps.clock.now(),
    );

  const sendRendered = (
    reply: FastifyReply,
    rendered: RenderedPage,
    type: string,
    filename: string,
    disposition: 'attachment' | 'inline' = 'attachment',
  ) =>
    reply
      .header('Content-Type', type)
      .header('Content-Disposition', `${disposition}; filename="${filename}"`)
      .header('X-Render-Height', String(rendered.height))
      .header('X-Render-Truncated', String(rendered.truncated))
      .send(rendered.body);

  const rendered = [
    { format: 'png', type: 'image/png', summary: 'The email as sent, rendered to PNG' },
    { format: 'pdf', type: 'application/pdf', summary: 'The email as sent, as a one-page PDF' },
  ] as const;
  for (const { format, type, summary } of rendered) {
    r.get(
      `/api/email/:id/export.${format}`,
      {
        config: { ...API_KEY_ROUTE, produces: type, summary },
        schema: { params: emailIdParams, querystring: renderQuery },
      },
      async (request, reply) => {
        const user = requireUser(request);
        const { id } = request.params;
        const { width, mode } = request.query;
        const html = await sentHtml(deps, user.id, id);
        requireRenderer(deps);
        await renderLimit(reply, user.id);
        const result = await renderSent(deps, user.id, html, { width, mode, format });
        return sendRendered(reply, result, type, `email-${id}-${width}-${mode}.${format}`);
      },
    );
  }

  r.get(
    '/api/email/:id/export.html',
    {
      config: { ...API_KEY_ROUTE, produces: 'text/html', summary: 'The HTML part as sent, as a file' },
      schema: { params: emailIdParams },
    },
    async (request, reply) => {
      const { id } = request.params;
      const html = await sentHtml(deps, requireUser(request).id, id);
      // An attachment, under the API's CSP (no script runs if it is opened here anyway).
      return reply
        .header('Content-Type', 'text/html; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="email-${id}.html"`)
        .send(html);
    },
  );

  r.get(
    '/api/email/:id/export.eml',
    {
      config: {
        ...API_KEY_ROUTE,
        produces: 'message/rfc822',
        summary: 'The message as delivered to the first recipient (as message.eml)',
      },
      schema: { params: emailIdParams },
    },
    async (request, reply) => {
      const { id } = request.params;
      // The same bytes as GET /api/email/{id}/message.eml: one builder, one service.
      const { message } = await deliveredMessage(deps, requireUser(request).id, id, undefined);
      return reply
        .header('Content-Type', 'message/rfc822')
        .header('Content-Disposition', `attachment; filename="email-${id}.eml"`)
        .send(message);
    },
  );

  r.get(
    '/api/email/:id/thumbnail.png',
    {
      config: { ...API_KEY_ROUTE, produces: 'image/png', summary: 'A small picture of the top of the email' },
      schema: { params: emailIdParams, querystring: thumbnailQuery },
    },
    async (request, reply) => {
      const user = requireUser(request);
      const { id } = request.params;
      const { mode } = request.query;
      const png = await thumbnail(deps, user.id, id, mode, () => renderLimit(reply, user.id));
      return reply
        .header('Content-Type', 'image/png')
        .header('Content-Disposition', `inline; filename="email-${id}-thumbnail.png"`)
        .send(png);
    },
  );

  r.get(
    '/api/email/:id/compare/:otherId/pixels',
    {
      config: { ...API_KEY_ROUTE, summary: 'Pixel diff of two emails rendered alike, rows aligned' },
      schema: { params: compareParams, querystring: renderQuery, response: { 200: pixelDiffResponse } },
    },
    async (request, reply) => {
      const user = requireUser(request);
      const { id, otherId } = request.params;
      const pair: [string, string] = [
        await sentHtml(deps, user.id, id),
        await sentHtml(deps, user.id, otherId),
      ];
      requireRenderer(deps);
      await renderLimit(reply, user.id, 2);
      return comparePixels(deps, user.id, pair, request.query);
    },
  );
}
