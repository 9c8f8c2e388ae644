/**
 * Share settings and review rules shared by the forms and the server, without zod so the public
 * page stays light (docs/decisions/0083-share-per-thread.md, 0085-reviews-throttled-and-notified.md).
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
  notFound: 'Review not found',
} as const;

export const REVIEW_DECISIONS = ['approved', 'changes_requested', 'comment'] as const;
export type ReviewDecision = (typeof REVIEW_DECISIONS)[number];
