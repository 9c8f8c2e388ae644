// Business constants from docs/spec.md §9. Limits that an operator can change (the free allowance,
// Pro fair use) come from the server through GET /api/config; these are the fixed ones.
export const PLANS = ['free', 'pro'] as const;
export type Plan = (typeof PLANS)[number];

export const SUBSCRIPTION_STATUSES = [
  'none',
  'active',
  'trialing',
  'past_due',
  'canceled',
  'unpaid',
] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export const MAX_RECIPIENTS = 5;
export const HISTORY_PAGE_SIZE = 20;
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;
export const PRO_PRICE_MONTHLY = 13;
export const PRO_PRICE_ID = 'pro_monthly';
export const USAGE_WARNING_RATIO = 0.8;
export const LOW_REMAINING_THRESHOLD = 2;
export const PRO_REDIRECT_DELAY_MS = 1000;
export const COPIED_INDICATOR_MS = 2000;
export const PAYMENT_SYNC_ATTEMPTS = 10;
export const PAYMENT_SYNC_INTERVAL_MS = 1000;
export const CAPTCHA_WAIT_TIMEOUT_MS = 30_000;
export const CAPTCHA_POLL_INTERVAL_MS = 100;
export const SUPPORT_RESPONSE_TIME = '24-48 hours';
/** The email's width as the spec's preview shows it, and the frame's minimum height (docs/spec.md §9). */
export const PREVIEW_WIDTH_PX = 600;
export const PREVIEW_MIN_HEIGHT_PX = 800;
