import { AUTH_MESSAGES } from '../../shared/contract/auth.ts';
import { passwordRuleProblem } from '../../shared/password-rules.ts';
import { asciiAddress } from '../../shared/recipients.ts';
import { badRequest } from '../http/errors.ts';
import { COMMON_PASSWORDS } from './common-passwords.ts';

/** Input rules every form that takes an address or a new password applies (sign-up, reset, settings). */

/**
 * An account's address as it is stored and looked up: trimmed, and an internationalised domain in
 * its ASCII form, as recipients are taken (src/shared/recipients.ts): `ann@bücher.example` signs up,
 * signs in, resets and is mailed as `ann@xn--bcher-kva.example`.
 */
export function normaliseEmail(email: string): string {
  return asciiAddress(email.trim());
}

let common: Set<string> | undefined;

/** One of the 10,000 most common passwords (scripts/common-passwords.mjs), in any letter case. */
export function isCommonPassword(password: string): boolean {
  common ??= new Set(COMMON_PASSWORDS.split('\n'));
  return common.has(password.toLowerCase());
}

/**
 * The rule for a new password (docs/decisions/0035-password-rule.md): the shared rule of the forms
 * (length, not only whitespace), then the common-password list. 400 `weak_password` naming the
 * problem. The schema caps the length (MAX_PASSWORD_LENGTH) before this runs.
 */
export function validateNewPassword(password: string): void {
  const problem =
    passwordRuleProblem(password) ??
    (isCommonPassword(password) ? AUTH_MESSAGES.passwordTooCommon : undefined);
  if (problem) throw badRequest(problem, 'weak_password');
}
