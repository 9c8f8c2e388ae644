import type { FastifyReply } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { badRequest, notFound } from '../../http/errors.ts';
import { enforceRateLimits, rateRule } from '../../http/rate-limit.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { reviewDecisionMail } from '../../mail/templates.ts';
import { type ReviewRequest, type ReviewResponse } from '../../../shared/contract/review.ts';
import {
  REVIEW_COMMENT_MAX,
  REVIEW_DECISIONS,
  REVIEW_MESSAGES,
  REVIEW_NAME_MAX,
  type ReviewDecision,
} from '../../../shared/review-rules.ts';
import { openShare } from './public-view.service.ts';
import { isUuid } from '../../db/uuid.ts';
import { deleteReviews, findSameReview, insertReview, reviewNotifyTarget } from './review.repo.ts';
import { toReview } from './share-view.ts';
import { findVersionContent, latestThreadVersion, listThreadVersions, threadOfEmail } from './share.repo.ts';

/**
 * Reviews without an account (docs/decisions/0085-reviews-throttled-and-notified.md): a name, a
 * decision or a plain comment, optionally pinned to a point of the preview. Stored as given (text,
 * never HTML), capped, throttled per link and address; each decision mails the owner unless they
 * turned review notifications off. The answer says whether a newer version exists and whether the
 * owner was mailed, so the page tells the reviewer only what is true
 * (docs/decisions/0124-review-answer-tells-the-reviewer.md).
 */

interface Deps {
  db: Db;
  config: Config;
  clock: Clock;
}

const MINUTE = 60_000;

export const REVIEW_RULES = {
  perLinkAndIp: rateRule('review-link-ip', 20, 10 * MINUTE, 'reviews'),
  perLink: rateRule('review-link', 200, 60 * MINUTE, 'reviews'),
  perIp: rateRule('review-ip', 60, 60 * MINUTE, 'reviews'),
} as const;

/** How long the same review sent again is taken for the first (a double click, a retry). */
const SAME_REVIEW_WINDOW_MS = 10 * MINUTE;

/** Characters as a person counts them (code points), not UTF-16 units. */
const length = (s: string) => [...s].length;

interface CheckedReview {
  name: string;
  decision: ReviewDecision;
  comment: string | null;
  version: number;
  pin: { x: number; y: number; width: number | null } | null;
}

export function checkReview(body: ReviewRequest): CheckedReview {
  const name = body.name.trim();
  if (!name) throw badRequest(REVIEW_MESSAGES.nameRequired, 'invalid_name');
  if (length(name) > REVIEW_NAME_MAX) throw badRequest(REVIEW_MESSAGES.nameTooLong, 'invalid_name');
  if (!(REVIEW_DECISIONS as readonly string[]).includes(body.decision))
    throw badRequest(REVIEW_MESSAGES.decision, 'invalid_decision');
  const decision = body.decision as ReviewDecision;
  const comment = body.comment?.trim() || null;
  if (comment !== null && length(comment) > REVIEW_COMMENT_MAX)
    throw badRequest(REVIEW_MESSAGES.commentTooLong, 'invalid_comment');
  if (decision === 'comment' && comment === null)
    throw badRequest(REVIEW_MESSAGES.commentRequired, 'invalid_comment');
  const pin = body.pin ?? null;
  if (pin && !(pin.x >= 0 && pin.x <= 1 && pin.y >= 0 && pin.y <= 1))
    throw badRequest(REVIEW_MESSAGES.pin, 'invalid_pin');
  return {
    name,
    decision,
    comment,
    version: body.version,
    pin: pin ? { x: pin.x, y: pin.y, width: pin.width ?? null } : null,
  };
}

export async function addReview(
  deps: Deps,
  reply: FastifyReply,
  slug: string,
  viewerToken: string | undefined,
  clientIp: string,
  body: ReviewRequest,
): Promise<ReviewResponse> {
  const share = await openShare(deps, slug, viewerToken);
  const review = checkReview(body);
  const versions = await listThreadVersions(deps.db, share.user_id, share.thread_id);
  const version = versions.find((v) => v.version === review.version);
  if (!version) throw badRequest(REVIEW_MESSAGES.version, 'invalid_version');
  const now = deps.clock.now();
  await enforceRateLimits(
    deps.db,
    reply,
    [
      { rule: REVIEW_RULES.perLinkAndIp, subject: `${share.thread_id}|${clientIp}` },
      { rule: REVIEW_RULES.perLink, subject: share.thread_id },
      { rule: REVIEW_RULES.perIp, subject: clientIp },
    ],
    now,
  );
  return deps.db.transaction().execute(async (trx) => {
    // Sent twice (a double click, a retry): the first answers again, stored and mailed once. Whether
    // the first was mailed is not kept, so the copy claims no mail: "saved" is true either way.
    const same = await findSameReview(
      trx,
      { threadId: share.thread_id, ...review },
      new Date(now.getTime() - SAME_REVIEW_WINDOW_MS),
    );
    // Read once the review is in: a version sent while the reviewer was reading is counted.
    const newerVersion = async () => {
      const latest = await latestThreadVersion(trx, share.user_id, share.thread_id);
      return latest !== undefined && latest > review.version ? latest : null;
    };
    if (same) return { review: toReview(same), newerVersion: await newerVersion(), notified: false };
    const row = await insertReview(trx, {
      threadId: share.thread_id,
      userId: share.user_id,
      ...review,
      now,
    });
    // True only when a mail to the owner is queued: the page tells the reviewer "the sender has
    // been told" on this alone (src/web/features/public-view/review-form.tsx).
    let notified = false;
    if (review.decision !== 'comment') {
      const owner = await reviewNotifyTarget(trx, share.user_id);
      const email = await findVersionContent(trx, version.id);
      if (owner?.review_notifications && email) {
        const mail = reviewDecisionMail({
          publicUrl: deps.config.publicUrl,
          emailId: version.id,
          subject: email.subject,
          version: review.version,
          name: review.name,
          decision: review.decision,
          comment: review.comment,
          time: now,
        });
        await enqueueMail(
          trx,
          { priority: 'system', to: [owner.email], subject: mail.subject, html: mail.html, text: mail.text },
          { messageIdDomain: deps.config.mailDomain },
        );
        notified = true;
      }
    }
    return { review: toReview(row), newerVersion: await newerVersion(), notified };
  });
}

/**
 * The owner removes a review of an email's thread (spam, a mistaken approval), or all of them; a
 * review of another thread or another user's is "not found", as a missing one is.
 */
export async function removeReviews(
  deps: Deps,
  userId: string,
  emailId: string,
  reviewId?: string,
): Promise<{ deleted: number }> {
  const threadId = await threadOfEmail(deps.db, userId, emailId);
  if (!threadId) throw notFound('Email not found');
  if (reviewId !== undefined && !isUuid(reviewId)) throw notFound(REVIEW_MESSAGES.notFound);
  const deleted = await deleteReviews(deps.db, userId, threadId, reviewId);
  if (reviewId !== undefined && deleted === 0) throw notFound(REVIEW_MESSAGES.notFound);
  return { deleted };
}
