import { z } from 'zod';

/**
 * Share settings, viewer tokens and client reviews (docs/decisions/0083-share-per-thread.md,
 * 0084-viewer-tokens.md, 0085-reviews-throttled-and-notified.md).
 */

import {
  REVIEW_COMMENT_MAX,
  REVIEW_DECISIONS,
  REVIEW_MESSAGES,
  REVIEW_NAME_MAX,
  SHARE_EXPIRY_DAYS,
  SHARE_PASSWORD_MAX,
  SHARE_PASSWORD_MIN,
  type ShareExpiryDays,
} from '../review-rules.ts';
import { serviceCheckedString, UTF16_UNITS } from './common.ts';

/**
 * The expiry of a link made to replace an expired one, when the share call names none: the length
 * the expired link was set for, counted from the new link's making; a length that was not kept
 * (set before migration 0022) is the shortest choice. An expiring link never comes back as one
 * that never expires by itself (docs/decisions/0123-renewed-link-keeps-its-protection.md). The
 * server applies it (src/server/features/email/share.service.ts) and the Share Link dialog says it
 * before the owner turns sharing on (src/web/features/email-detail/share-dialog.tsx).
 */
export function renewedExpiryDays(expiredLinkDays: number | null): ShareExpiryDays {
  const kept = SHARE_EXPIRY_DAYS.find((d) => d === expiredLinkDays);
  return kept ?? SHARE_EXPIRY_DAYS[0];
}

/**
 * POST /api/email/{id}/share: optional settings. Absent fields keep the link's current setting
 * (a first link: never expires, no password; a link replacing an expired one: its password, and
 * an expiry of the same length from now, `renewedExpiryDays`); `null` removes it. The service
 * checks both with its own messages (src/server/features/email/share.service.ts); the document
 * states its limits.
 */
export const shareRequest = z
  .strictObject({
    expiresInDays: z
      .number()
      .meta({
        enum: [...SHARE_EXPIRY_DAYS],
        description:
          'Days the link works; null: it never expires. Absent: unchanged; a new link replacing an expired one gets the length the expired one had, counted from now.',
      })
      .nullable()
      .optional(),
    password: serviceCheckedString(10_000, {
      message: REVIEW_MESSAGES.passwordLong,
      code: 'invalid_password',
    })
      .meta({
        minLength: SHARE_PASSWORD_MIN,
        maxLength: SHARE_PASSWORD_MAX,
        description: `The viewing password, ${UTF16_UNITS}; null: none. Absent: unchanged; a new link replacing an expired one keeps its password.`,
      })
      .nullable()
      .optional(),
  })
  // No body at all (as before settings existed) reaches the validator as null.
  .nullish();
export type ShareRequest = z.input<typeof shareRequest>;

/** What the owner sees of a link; null when the email is not shared. */
export const shareInfo = z.object({
  views: z.number().int(),
  lastViewedAt: z.string().nullable(),
  /** ISO time; null: never. In the past: the link is dead (the email shows as not public). */
  expiresAt: z.string().nullable(),
  /** The length the expiry was set for: 1, 7 or 30 days; null: never expires (or set before lengths were kept). */
  expiresInDays: z.number().int().nullable(),
  /** A password is needed to view it. */
  protected: z.boolean(),
});
export type ShareInfo = z.infer<typeof shareInfo>;

/** A point of the preview: fractions of the rendered email's width and height, at `width` CSS px. */
export const reviewPin = z.object({ x: z.number(), y: z.number(), width: z.number().int().nullable() });
export type ReviewPin = z.infer<typeof reviewPin>;

export const review = z.object({
  id: z.string(),
  name: z.string(),
  decision: z.enum(REVIEW_DECISIONS),
  comment: z.string().nullable(),
  version: z.number().int(),
  pin: reviewPin.nullable(),
  createdAt: z.string(),
});
export type Review = z.infer<typeof review>;

/**
 * DELETE /api/email/{id}/reviews/{reviewId} (one) and DELETE /api/email/{id}/reviews (all): the
 * owner removes reviews of the email's thread, for good; what was deleted is counted.
 */
export const reviewIdParams = z.strictObject({ id: z.string().max(100), reviewId: z.string().max(100) });
export const deleteReviewsResponse = z.object({ deleted: z.number().int() });

/** The history's badge: the thread's latest decision (plain comments do not count). */
export const latestDecision = z
  .object({ decision: z.enum(['approved', 'changes_requested']), version: z.number().int() })
  .nullable();
export type LatestDecision = z.infer<typeof latestDecision>;

/**
 * POST /api/email/public/{slug}/reviews. Lengths and values are checked with clear messages
 * (`checkReview` in src/server/features/email/review.service.ts); the document states them.
 */
const pinFraction = (of: string) =>
  z.number().meta({ minimum: 0, maximum: 1, description: `A fraction of the email's ${of}: 0 to 1.` });
export const reviewRequest = z.strictObject({
  name: serviceCheckedString(
    10_000,
    { message: REVIEW_MESSAGES.nameTooLong, code: 'invalid_name' },
    { message: REVIEW_MESSAGES.nameRequired, code: 'invalid_name' },
  ).meta({
    minLength: 1,
    maxLength: REVIEW_NAME_MAX,
    description: 'Trimmed; it must not be blank.',
  }),
  decision: serviceCheckedString(100, { message: REVIEW_MESSAGES.decision, code: 'invalid_decision' }).meta({
    enum: [...REVIEW_DECISIONS],
  }),
  comment: serviceCheckedString(100_000, { message: REVIEW_MESSAGES.commentTooLong, code: 'invalid_comment' })
    .meta({
      maxLength: REVIEW_COMMENT_MAX,
      description: 'Trimmed; required when the decision is "comment".',
    })
    .nullable()
    .optional(),
  version: z.number().int().meta({ minimum: 1, description: 'A version of the shared email.' }),
  pin: z
    .strictObject({
      x: pinFraction('width'),
      y: pinFraction('height'),
      width: z.number().int().min(1).max(10_000).optional(),
    })
    .nullable()
    .optional(),
});
export type ReviewRequest = z.input<typeof reviewRequest>;
/**
 * The review as stored, and what the reviewer must be told of it: whether they judged an older
 * round, and whether the sender was mailed (docs/decisions/0124-review-answer-tells-the-reviewer.md).
 */
export const reviewResponse = z.object({
  review,
  newerVersion: z.number().int().nullable().meta({
    description:
      "The thread's latest version when it is newer than the version reviewed (the reviewer judged an older round); null when the review is of the latest.",
  }),
  notified: z.boolean().meta({
    description:
      'Whether a mail to the sender was queued for this review. False for a plain comment, when the sender turned review notifications off, and for the same review sent again (answered with the first): the review is saved and the sender sees it with the email either way.',
  }),
});
export type ReviewResponse = z.infer<typeof reviewResponse>;

export const unlockRequest = z.strictObject({ password: z.string().max(10_000) });
export const unlockResponse = z.object({ token: z.string(), expiresAt: z.string() });
export type UnlockResponse = z.infer<typeof unlockResponse>;

/** The header that carries a viewer token on the public calls (never a cookie). */
export const VIEWER_TOKEN_HEADER = 'x-viewer-token';

export const publicVersionQuery = z.object({
  v: z.coerce.number().int().min(1).max(1_000_000).optional(),
});

export const reviewNotifications = z.strictObject({ reviewNotifications: z.boolean() });
export type ReviewNotifications = z.infer<typeof reviewNotifications>;
