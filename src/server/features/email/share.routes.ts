import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  emailIdParams,
  publicEmail,
  shareResponse,
  sharedLinksResponse,
  slugParams,
  unshareResponse,
  withdrawSharedLinksResponse,
} from '../../../shared/contract/email.ts';
import {
  deleteReviewsResponse,
  publicVersionQuery,
  reviewNotifications,
  reviewIdParams,
  reviewRequest,
  reviewResponse,
  shareRequest,
  unlockRequest,
  unlockResponse,
  VIEWER_TOKEN_HEADER,
} from '../../../shared/contract/review.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { API_KEY_ROUTE, PUBLIC_ROUTE, requireUser } from '../../http/auth.ts';
import { enforceRateLimits, rateRule } from '../../http/rate-limit.ts';
import { markPrivatePublicPage } from '../../http/security-headers.ts';
import { getPublicEmail, unlockShare } from './public-view.service.ts';
import { loadReviewNotifications, saveReviewNotifications } from './review.repo.ts';
import { addReview, removeReviews } from './review.service.ts';
import {
  countSharedLinks,
  rotateShareLink,
  shareEmail,
  unshareEmail,
  withdrawSharedLinks,
} from './share.service.ts';

/** Sharing and withdrawing links, per user: plenty for a person, a wall for a script. */
export const SHARE_RATE_RULE = rateRule('share-user', 60, 10 * 60_000, 'sharing changes');

const VIEWER_TOKEN = {
  name: 'X-Viewer-Token',
  description: 'The token from POST /api/email/public/{slug}/unlock, for a password-protected link.',
};

/** Every public answer, validation errors included, is noindex and no-referrer. */
const onPublicRequest = (_request: FastifyRequest, reply: FastifyReply, done: () => void) => {
  markPrivatePublicPage(reply);
  done();
};

function viewerTokenOf(request: FastifyRequest): string | undefined {
  const value = request.headers[VIEWER_TOKEN_HEADER];
  return typeof value === 'string' ? value : undefined;
}

/**
 * Sharing a thread and its public view (docs/decisions/0083-share-per-thread.md,
 * 0084-viewer-tokens.md, 0085-reviews-throttled-and-notified.md). Every public answer, errors
 * included, carries noindex and no-referrer.
 */
export function registerShareRoutes(app: FastifyInstance, deps: FeatureDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const shareLimit = (reply: FastifyReply, userId: string) =>
    enforceRateLimits(deps.db, reply, [{ rule: SHARE_RATE_RULE, subject: userId }], deps.clock.now());

  r.post(
    '/api/email/:id/share',
    {
      config: {
        ...API_KEY_ROUTE,
        summary: 'Share the email (all its versions): optional expiry in days and viewing password',
      },
      schema: { params: emailIdParams, body: shareRequest, response: { 200: shareResponse } },
    },
    async (request, reply) => {
      const user = requireUser(request);
      await shareLimit(reply, user.id);
      return shareEmail(deps, user, request.params.id, request.body);
    },
  );

  r.post(
    '/api/email/:id/share/rotate',
    {
      config: { ...API_KEY_ROUTE, summary: 'Give the link a new address; the old one stops working' },
      schema: { params: emailIdParams, response: { 200: shareResponse } },
    },
    async (request, reply) => {
      const user = requireUser(request);
      await shareLimit(reply, user.id);
      return rotateShareLink(deps, user, request.params.id);
    },
  );

  r.delete(
    '/api/email/:id/share',
    { config: API_KEY_ROUTE, schema: { params: emailIdParams, response: { 200: unshareResponse } } },
    async (request, reply) => {
      const user = requireUser(request);
      await shareLimit(reply, user.id);
      return { ok: true as const, email: await unshareEmail(deps, user.id, request.params.id) };
    },
  );

  r.get(
    '/api/email/shared',
    { config: API_KEY_ROUTE, schema: { response: { 200: sharedLinksResponse } } },
    async (request) => ({
      count: await countSharedLinks(deps, requireUser(request).id),
    }),
  );

  r.delete(
    '/api/email/shared',
    { config: API_KEY_ROUTE, schema: { response: { 200: withdrawSharedLinksResponse } } },
    async (request, reply) => {
      const user = requireUser(request);
      await shareLimit(reply, user.id);
      return { ok: true as const, withdrawn: await withdrawSharedLinks(deps, user.id) };
    },
  );

  r.get(
    '/api/email/public/:slug',
    {
      config: {
        ...PUBLIC_ROUTE,
        summary: 'A shared email: the latest version, or `?v=` another; 401 password_required when protected',
        headerParams: [VIEWER_TOKEN],
      },
      onRequest: onPublicRequest,
      schema: { params: slugParams, querystring: publicVersionQuery, response: { 200: publicEmail } },
    },
    async (request) => {
      return getPublicEmail(deps, request.params.slug, request.query.v, viewerTokenOf(request));
    },
  );

  r.post(
    '/api/email/public/:slug/unlock',
    {
      config: { ...PUBLIC_ROUTE, summary: 'Trade the viewing password for a viewer token (2 hours)' },
      onRequest: onPublicRequest,
      schema: { params: slugParams, body: unlockRequest, response: { 200: unlockResponse } },
    },
    async (request, reply) => {
      return unlockShare(deps, reply, request.params.slug, request.body.password, request.ip);
    },
  );

  r.post(
    '/api/email/public/:slug/reviews',
    {
      config: {
        ...PUBLIC_ROUTE,
        summary: 'Approve, request changes or comment on a version, without an account',
        headerParams: [VIEWER_TOKEN],
      },
      onRequest: onPublicRequest,
      schema: { params: slugParams, body: reviewRequest, response: { 200: reviewResponse } },
    },
    async (request, reply) =>
      addReview(deps, reply, request.params.slug, viewerTokenOf(request), request.ip, request.body),
  );

  r.delete(
    '/api/email/:id/reviews/:reviewId',
    {
      config: { ...API_KEY_ROUTE, summary: "Delete one review of the email's thread" },
      schema: { params: reviewIdParams, response: { 200: deleteReviewsResponse } },
    },
    async (request) =>
      removeReviews(deps, requireUser(request).id, request.params.id, request.params.reviewId),
  );

  r.delete(
    '/api/email/:id/reviews',
    {
      config: { ...API_KEY_ROUTE, summary: "Delete every review of the email's thread" },
      schema: { params: emailIdParams, response: { 200: deleteReviewsResponse } },
    },
    async (request) => removeReviews(deps, requireUser(request).id, request.params.id),
  );

  r.get(
    '/api/user/review-notifications',
    { schema: { response: { 200: reviewNotifications } } },
    async (request) => ({
      reviewNotifications: await loadReviewNotifications(deps.db, requireUser(request).id),
    }),
  );

  r.put(
    '/api/user/review-notifications',
    { schema: { body: reviewNotifications, response: { 200: reviewNotifications } } },
    async (request) => ({
      reviewNotifications: await saveReviewNotifications(
        deps.db,
        requireUser(request).id,
        request.body.reviewNotifications,
        deps.clock.now(),
      ),
    }),
  );
}
