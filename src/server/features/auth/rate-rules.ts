import type { RateRule } from '../../http/rate-limit.ts';

/**
 * Limits on the account endpoints, per client IP and per account (guide §6, ASVS 2.2.1).
 * Sign-in and change-password count failed attempts only (a success gives its hit back), so a
 * person who types their password right is never locked out by their own sign-ins.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

const rule = (name: string, limit: number, windowMs: number, what: string): RateRule => ({
  name,
  limit,
  windowMs,
  message: (wait) => `Too many ${what}. Try again in ${wait}.`,
});

export const RATE_RULES = {
  signInPerIp: rule('signin-ip', 30, 15 * MINUTE, 'sign-in attempts'),
  signInPerAccount: rule('signin-account', 10, 15 * MINUTE, 'sign-in attempts'),
  signUpPerIp: rule('signup-ip', 20, HOUR, 'sign-up attempts'),
  resetRequestPerIp: rule('reset-request-ip', 20, HOUR, 'password reset requests'),
  resetRequestPerAccount: rule('reset-request-account', 5, HOUR, 'password reset requests'),
  resetPerIp: rule('reset-ip', 20, 15 * MINUTE, 'password reset attempts'),
  resendPerIp: rule('resend-ip', 20, HOUR, 'verification email requests'),
  resendPerAccount: rule('resend-account', 5, HOUR, 'verification email requests'),
  changePasswordPerAccount: rule('change-password-account', 10, 15 * MINUTE, 'password attempts'),
  changeEmailPerAccount: rule('change-email-account', 5, HOUR, 'email change requests'),
} as const;
