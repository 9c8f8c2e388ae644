import { AUTH_MESSAGES } from '../../shared/contract/auth.ts';
import { badRequest } from '../http/errors.ts';
import { isAcceptablePassword } from './credentials.ts';

/** Input rules every form that takes an address or a new password applies (sign-up, reset, settings). */

export function normaliseEmail(email: string): string {
  return email.trim();
}

export function validateNewPassword(password: string): void {
  if (!isAcceptablePassword(password)) throw badRequest(AUTH_MESSAGES.passwordTooShort, 'weak_password');
}
