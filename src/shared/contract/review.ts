import { z } from 'zod';

/**
 * Share settings, viewer tokens and client reviews (docs/decisions/0083-share-per-thread.md,
 * 0084-viewer-tokens.md, 0085-reviews-throttled-and-notified.md).
 */

/** Expiry choices of a public link, in days; null: never. */
export const SHARE_EXPIRY_DAYS = [1, 7, 30] as const;
export type ShareExpiryDays = (typeof SHARE_EXPIRY_DAYS)[number];

export const SHARE_PASSWORD_MIN = 4;
export const SHARE_PASSWORD_MAX = 200;
export const REVIEW_NAME_MAX = 80;
export const REVIEW_COMMENT_MAX = 2000;

/** The messages the form and the server both show. */
export const REVIEW_MESSAGES = {
  expiry: 'expiresInDays must be 1, 7, 30 or null (never)',
  passwordShort: `Password must be at least ${SHARE_PASSWORD_MIN} characters`,
  passwordLong: `Password must be at most ${SHARE_PASSWORD_MAX} characters`,
  passwordRequired: 'This email is protected by a password',
  wrongPassword: 'Wrong password',
  nameRequired: 'Name is required',
  nameTooLong: `Name must be at most ${REVIEW_NAME_MAX} characters`,
  commentRequired: 'Comment is required for a plain comment',
  commentTooLong: `Comment must be at most ${REVIEW_COMMENT_MAX} characters`,
  decision: 'Decision must be approved, changes_requested or comment',
  version: 'Version not found',
  pin: 'Pin must be inside the email: x and y between 0 and 1',
} as const;

/**
 * POST /api/email/{id}/share: optional settings. Absent fields keep the link's current setting
 * (a new link: never expires, no password); `null` removes it.
 */
export const shareRequest = z
  .strictObject({
    expiresInDays: z.number().nullable().optional(),
    password: z.string().max(10_000).nullable().optional(),
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
  /** A password is needed to view it. */
  protected: z.boolean(),
});
export type ShareInfo = z.infer<typeof shareInfo>;

export const REVIEW_DECISIONS = ['approved', 'changes_requested', 'comment'] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];

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

/** The history's badge: the thread's latest decision (plain comments do not count). */
export const latestDecision = z
  .object({ decision: z.enum(['approved', 'changes_requested']), version: z.number().int() })
  .nullable();
export type LatestDecision = z.infer<typeof latestDecision>;

/** POST /api/email/public/{slug}/reviews. Lengths and values are checked with clear messages. */
export const reviewRequest = z.strictObject({
  name: z.string().max(10_000),
  decision: z.string().max(100),
  comment: z.string().max(100_000).nullable().optional(),
  version: z.number().int(),
  pin: z
    .strictObject({ x: z.number(), y: z.number(), width: z.number().int().min(1).max(10_000).optional() })
    .nullable()
    .optional(),
});
export type ReviewRequest = z.input<typeof reviewRequest>;
export const reviewResponse = z.object({ review });

export const unlockRequest = z.strictObject({ password: z.string().max(10_000) });
export const unlockResponse = z.object({ token: z.string(), expiresAt: z.string() });
export type UnlockResponse = z.infer<typeof unlockResponse>;

/** The header that carries a viewer token on the public calls (never a cookie). */
export const VIEWER_TOKEN_HEADER = 'x-viewer-token';

export const publicVersionQuery = z.strictObject({
  v: z.coerce.number().int().min(1).max(1_000_000).optional(),
});

export const reviewNotifications = z.strictObject({ reviewNotifications: z.boolean() });
export type ReviewNotifications = z.infer<typeof reviewNotifications>;
