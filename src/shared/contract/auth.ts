import { z } from 'zod';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, PLANS, SUBSCRIPTION_STATUSES } from '../plans.ts';
import { UTF16_UNITS, whenAbsent } from './common.ts';

/**
 * Auth and user API contract (docs/spec.md §3, §7). Requests are strict objects: unknown fields are
 * rejected. Field-level messages are the spec's texts where the spec has one.
 */

/**
 * Every auth message the server answers or a form shows, in one place. The spec's in-page texts
 * (docs/spec.md §5, §8) are verbatim; the rest are ours.
 */
export const AUTH_MESSAGES = {
  // spec texts
  fillAllFields: 'Please fill in all fields',
  completeCaptcha: 'Please complete the CAPTCHA',
  passwordTooShort: `Password must be at least ${MIN_PASSWORD_LENGTH} characters`,
  passwordsDoNotMatch: 'Passwords do not match',
  invalidResetLink: 'Invalid reset link',
  invalidVerificationLink: 'Invalid verification link',
  // ours
  invalidEmail: 'Please enter a valid email address',
  missingEmail: 'Please enter your email address',
  missingNewEmail: 'Please enter a new email address',
  emailTaken: 'An account with this email already exists',
  invalidCredentials: 'Invalid email or password',
  expiredVerificationLink: 'Invalid or expired verification link',
  expiredResetLink: 'Invalid or expired reset link',
  invalidTicket: 'This sign-in link is invalid or has expired. Please sign in again.',
  passwordOnlySpaces: 'Password cannot be only spaces',
  passwordTooCommon: 'This password is too common. Choose one that is harder to guess.',
  currentPasswordRequired: 'Please enter your current password',
  currentPasswordIncorrect: 'Current password is incorrect',
  reauthRequired:
    'For your security, sign in again to change your email address: your last sign-in was more than 10 minutes ago.',
  expiredCancelLink: 'This link is invalid or has expired',
  captchaOff: 'The captcha is off on this server: sign-up needs no challenge.',
} as const;

export const user = z.object({
  id: z.string(),
  email: z.string(),
  verified: z.boolean(),
  plan: z.enum(PLANS),
  createdAt: z.string(),
  subscriptionStatus: z.enum(SUBSCRIPTION_STATUSES),
  /** True when the account has a password (social-only accounts do not). */
  hasPassword: z.boolean(),
});
export type User = z.infer<typeof user>;

const passwordString = (absent?: ReturnType<typeof whenAbsent>) =>
  z
    .string(absent)
    .max(MAX_PASSWORD_LENGTH, { error: `Password must be at most ${MAX_PASSWORD_LENGTH} characters` });
const password = passwordString();
/**
 * A password being set. The rule is the server's (src/server/accounts/account-rules.ts, with its
 * messages); the document states it. Its minimum counts characters as typed, its maximum the
 * schema's UTF-16 code units.
 */
const NEW_PASSWORD_META = {
  minLength: MIN_PASSWORD_LENGTH,
  description:
    `At least ${MIN_PASSWORD_LENGTH} characters as typed (never trimmed), not only spaces, and not one of the ` +
    `10,000 most common passwords; at most ${MAX_PASSWORD_LENGTH.toLocaleString('en')}, ${UTF16_UNITS}.`,
};
const newPassword = password.meta(NEW_PASSWORD_META);

/** A sign-up or sign-in that leaves a field out is answered like one that leaves it empty (spec §5). */
const FILL_ALL_FIELDS = whenAbsent({ message: AUTH_MESSAGES.fillAllFields, code: 'missing_fields' });
const emailToSignIn = z.string(FILL_ALL_FIELDS).trim().max(254);

export const signUpRequest = z.strictObject({
  email: emailToSignIn,
  password: passwordString(FILL_ALL_FIELDS).meta(NEW_PASSWORD_META),
  captchaToken: z.string().max(10_000).optional(),
});
export const signInRequest = z.strictObject({
  email: emailToSignIn,
  password: passwordString(FILL_ALL_FIELDS),
});
export const sessionResponse = z.object({ user, token: z.string() });
export type SessionResponse = z.infer<typeof sessionResponse>;

export const meResponse = z.object({ user });
export const okResponse = z.object({ ok: z.literal(true) });

export const verifyEmailRequest = z.strictObject({ token: z.string().max(200) });
export const verifyEmailResponse = z.object({ ok: z.literal(true), emailChanged: z.boolean() });

export const requestPasswordResetRequest = z.strictObject({
  email: z
    .string(whenAbsent({ message: AUTH_MESSAGES.missingEmail, code: 'missing_fields' }))
    .trim()
    .max(254),
});
export const resetPasswordRequest = z.strictObject({
  token: z.string().max(200),
  newPassword: passwordString(
    whenAbsent({ message: AUTH_MESSAGES.passwordTooShort, code: 'weak_password' }),
  ).meta(NEW_PASSWORD_META),
});

export const exchangeRequest = z.strictObject({ ticket: z.string().max(200) });

export const settingsResponse = z.object({
  ok: z.literal(true),
  user,
  prefs: z.object({ loginAlerts: z.boolean() }),
});
export type SettingsResponse = z.infer<typeof settingsResponse>;
export const updateSettingsRequest = z.strictObject({ loginAlerts: z.boolean() });
export const updateSettingsResponse = z.object({
  ok: z.literal(true),
  prefs: z.object({ loginAlerts: z.boolean() }),
});

/**
 * An email change proves the person at the keyboard owns the account: the current password, or,
 * for an account without one (social sign-in), a sign-in in the last 10 minutes.
 */
export const changeEmailRequest = z.strictObject({
  newEmail: z
    .string(whenAbsent({ message: AUTH_MESSAGES.missingNewEmail, code: 'missing_fields' }))
    .trim()
    .max(254),
  currentPassword: password.optional(),
});

/** The "this wasn't me" link of an email-change notice. */
export const cancelEmailChangeRequest = z.strictObject({ token: z.string().max(200) });
export const cancelEmailChangeResponse = z.object({
  ok: z.literal(true),
  /** True when the change had already been confirmed and the previous address was put back. */
  restored: z.boolean(),
  /** The account's address now. */
  email: z.string(),
  /** True when a password set since the request was removed ("Forgot password" sets a new one). */
  passwordRemoved: z.boolean(),
});
export type CancelEmailChangeResponse = z.infer<typeof cancelEmailChangeResponse>;
export const changePasswordRequest = z.strictObject({ currentPassword: password, newPassword });

/** Social sign-in providers; a provider is offered only when the server has it configured. */
export const OAUTH_PROVIDERS = ['google', 'github'] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

/** GET /api/auth/captcha/challenge: an ALTCHA v2 challenge, passed to the widget as is. */
export const captchaChallengeResponse = z.object({
  parameters: z.looseObject({
    algorithm: z.string(),
    nonce: z.string(),
    salt: z.string(),
    cost: z.number(),
    keyLength: z.number(),
    keyPrefix: z.string(),
  }),
  signature: z.string(),
});
export type CaptchaChallenge = z.infer<typeof captchaChallengeResponse>;
