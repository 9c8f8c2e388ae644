import { rateRule } from '../../http/rate-limit.ts';

/**
 * Limits on changes to the signed-in user's own account (docs/architecture.md §6). Change-password
 * counts wrong current passwords only (a success gives its hit back).
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const USER_RATE_RULES = {
  changePasswordPerAccount: rateRule('change-password-account', 10, 15 * MINUTE, 'password attempts'),
  changeEmailPerAccount: rateRule('change-email-account', 5, HOUR, 'email change requests'),
} as const;
