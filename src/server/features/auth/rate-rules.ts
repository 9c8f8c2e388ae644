import { rateRule } from '../../http/rate-limit.ts';

/**
 * Limits on the auth endpoints, per client IP and per account (docs/architecture.md §6, ASVS
 * 2.2.1). Sign-in counts failed attempts only (a success gives its hit back), so a person who
 * types their password right is never locked out by their own sign-ins, and a browser the
 * account knows is never held back by anyone else's failures
 * (docs/decisions/0034-sign-in-slowdown-and-known-devices.md).
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

export const RATE_RULES = {
  // Sign-in (src/server/features/auth/sign-in-throttle.ts): failed attempts only. Per address and
  // per account for browsers the account does not know; per device for those it knows.
  signInPerIp: rateRule('signin-ip', 30, 15 * MINUTE, 'sign-in attempts'),
  signInPerAccount: rateRule('signin-account', 100, HOUR, 'sign-in attempts'),
  signInPerDevice: rateRule('signin-device', 10, 15 * MINUTE, 'sign-in attempts'),
  signUpPerIp: rateRule('signup-ip', 20, HOUR, 'sign-up attempts'),
  resetRequestPerIp: rateRule('reset-request-ip', 20, HOUR, 'password reset requests'),
  resetRequestPerAccount: rateRule('reset-request-account', 5, HOUR, 'password reset requests'),
  resetPerIp: rateRule('reset-ip', 20, 15 * MINUTE, 'password reset attempts'),
  cancelEmailChangePerIp: rateRule('cancel-email-change-ip', 20, 15 * MINUTE, 'attempts'),
  resendPerIp: rateRule('resend-ip', 20, HOUR, 'verification email requests'),
  resendPerAccount: rateRule('resend-account', 5, HOUR, 'verification email requests'),
} as const;
