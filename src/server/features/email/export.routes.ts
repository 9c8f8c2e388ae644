import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { emailIdParams } from '../../../shared/contract/email.ts';
import { htmlFile } from '../../../shared/html-file.ts';
import {
  compareParams,
  pixelDiffResponse,
  renderQuery,
  thumbnailQuery,
} from '../../../shared/contract/render.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { API_KEY_ROUTE, requireUser } from '../../http/auth.ts';
import { AppError } from '../../http/errors.ts';
import { enforceRateLimits, rateRule, refundRateLimits } from '../../http/rate-limit.ts';
import { MAX_QUEUED_PER_OWNER } from '../../render/renderer.ts';
import type { RenderedPage } from '../../render/render-page.ts';
import { comparePixels, renderSent, requireRenderer, sentHtml, thumbnail } from './export.service.ts';
import { deliveredMessage } from './message.service.ts';

/** Renders per user (a pixel comparison is two): plenty for a person, a wall for a script. */
export const RENDER_RATE_RULE = rateRule('render-user', 120, 10 * 60_000, 'renders');

/** The renderer turned these away before rendering (src/server/render/renderer.ts): they cost nothing. */
const TURNED_AWAY = new Set(['too_many_renders', 'render_busy']);

/** What a client of a render route should expect besides the default error answer. */
const RENDER_ERRORS: Record<number, string> = {
  429:
    'Too many renders: more than 120 in 10 minutes (the per-user limit), or more than ' +
    `${MAX_QUEUED_PER_OWNER} of yours already waiting for the renderer (\`too_many_renders\`, which costs ` +
    'nothing from the limit). `Retry-After` says when to try again.',
  422: 'The render took longer than its time budget (`render_timeout`).',
  503:
    'No Chromium on this server (`renderer_unavailable`), or the renderer is busy with other ' +
    "users' renders (`render_busy`, with `Retry-After`).",
};

/**
 * The headers of a PNG or PDF export (docs/decisions/0120-renderer-as-the-preview-and-fair.md):
 * its height in CSS pixels and whether it was cut at the page budget; the width of the email's
 * content, more than the asked width when it overflows sideways (the render shows the asked width,
 * the preview scrolls); and how many of its remote images are not in it.
 */
const RENDER_HEADERS =
  'X-Render-Height, X-Render-Truncated, X-Render-Content-Width and X-Render-Images-Failed describe it';

/**
 * Exports of an email as sent (PNG, PDF, its HTML part, its message) and the pixel comparison of
 * two emails (docs/architecture.md "The renderer"). Owner-scoped like every email route; open to
 * API keys like the other email reads.
 */
export function registerExportRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const hitsOf = (userId: string, hits: number) =>
    Array.from({ length: hits }, () => ({ rule: RENDER_RATE_RULE, subject: userId }));
  const renderLimit = (reply: FastifyReply, userId: string, hits = 1) =>
    enforceRateLimits(deps.db, reply, hitsOf(userId, hits), deps.clock.now());
  /** Runs `work` (renders charged to `userId`), giving the charge back when the renderer turned it away. */
  const refundTurnedAway = async <T>(userId: string, hits: number, work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (err) {
      if (err instanceof AppError && err.code !== undefined && TURNED_AWAY.has(err.code))
        await refundRateLimits(deps.db, hitsOf(userId, hits), deps.clock.now());
      throw err;
    }
  };

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
      .header('X-Render-Content-Width', String(rendered.contentWidth))
      .header('X-Render-Images-Failed', String(rendered.imagesFailed))
      .send(rendered.body);

  const rendered = [
    { format: 'png', type: 'image/png', summary: `The email as sent, rendered to PNG (${RENDER_HEADERS})` },
    {
      format: 'pdf',
      type: 'application/pdf',
      summary: `The email as sent, as a one-page PDF (${RENDER_HEADERS})`,
    },
  ] as const;
  for (const { format, type, summary } of rendered) {
    r.get(
      `/api/email/:id/export.${format}`,
      {
        config: { ...API_KEY_ROUTE, produces: type, summary, errorAnswers: RENDER_ERRORS },
        schema: { params: emailIdParams, querystring: renderQuery },
      },
      async (request, reply) => {
        const user = requireUser(request);
        const { id } = request.params;
        const { width, mode } = request.query;
        const html = await sentHtml(deps, user.id, id);
        requireRenderer(deps);
        await renderLimit(reply, user.id);
        const result = await refundTurnedAway(user.id, 1, () =>
          renderSent(deps, user.id, html, { width, mode, format }),
        );
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
        .send(htmlFile(html));
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
      config: {
        ...API_KEY_ROUTE,
        produces: 'image/png',
        summary: 'A small picture of the top of the email',
        errorAnswers: RENDER_ERRORS,
      },
      schema: { params: emailIdParams, querystring: thumbnailQuery },
    },
    async (request, reply) => {
      const user = requireUser(request);
      const { id } = request.params;
      const { mode } = request.query;
      // Only a thumbnail not stored yet is rendered, and charged (beforeRender); only it can be turned away.
      const png = await refundTurnedAway(user.id, 1, () =>
        thumbnail(deps, user.id, id, mode, () => renderLimit(reply, user.id)),
      );
      return reply
        .header('Content-Type', 'image/png')
        .header('Content-Disposition', `inline; filename="email-${id}-thumbnail.png"`)
        .send(png);
    },
  );

  r.get(
    '/api/email/:id/compare/:otherId/pixels',
    {
      config: {
        ...API_KEY_ROUTE,
        summary: 'Pixel diff of two emails rendered alike, rows aligned',
        errorAnswers: RENDER_ERRORS,
      },
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
      return refundTurnedAway(user.id, 2, () => comparePixels(deps, user.id, pair, request.query));
    },
  );
}
