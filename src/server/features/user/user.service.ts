import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import { isPlainAddress } from '../../../shared/recipients.ts';
import { issueToken, queueAccountMail } from '../../accounts/account-mail.ts';
import { normaliseEmail, validateNewPassword } from '../../accounts/account-rules.ts';
import { hashPassword, verifyPassword } from '../../accounts/credentials.ts';
import { deleteUserSessions } from '../../accounts/sessions.repo.ts';
import { retireTokens } from '../../accounts/tokens.repo.ts';
import {
  findPasswordHash,
  findUserByEmail,
  setPasswordHash,
  type AccountUser,
} from '../../accounts/users.repo.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { AppError, badRequest } from '../../http/errors.ts';
import {
  emailChangeNoticeMail,
  emailChangeVerificationMail,
  passwordChangedMail,
} from '../../mail/templates.ts';
import { setLoginAlerts } from './user.repo.ts';

/**
 * The signed-in user's account settings. The accounts data and rules it shares with sign-in
 * (users, sessions, tokens, credentials, account mail) live in src/server/accounts; the
 * auth feature's email-change link is what finally switches the address.
 */

export const USER_MESSAGES = {
  missingNewEmail: 'Please enter a new email address',
  sameEmail: 'This is already your email address',
  currentPasswordIncorrect: 'Current password is incorrect',
  noPassword:
    'Your account does not have a password yet. Use "Forgot password" on the sign-in page to set one.',
} as const;

export async function updateLoginAlerts(
  deps: FeatureDeps,
  user: AccountUser,
  enabled: boolean,
): Promise<boolean> {
  return setLoginAlerts(deps.db, user.id, enabled, deps.clock.now());
}

export function validateEmailChange(user: AccountUser, newEmailInput: string): string {
  const newEmail = normaliseEmail(newEmailInput);
  if (!newEmail) throw badRequest(USER_MESSAGES.missingNewEmail, 'missing_fields');
  if (!isPlainAddress(newEmail)) throw badRequest(AUTH_MESSAGES.invalidEmail, 'invalid_email');
  if (newEmail.toLowerCase() === user.email.toLowerCase())
    throw badRequest(USER_MESSAGES.sameEmail, 'same_email');
  return newEmail;
}

/**
 * Starts an email change: a confirmation link to the new address and a notice to the old one, in
 * one transaction. The address changes only when the link is used (auth's verifyEmail).
 */
export async function requestEmailChange(
  deps: FeatureDeps,
  user: AccountUser,
  newEmail: string,
): Promise<void> {
  if (await findUserByEmail(deps.db, newEmail))
    throw new AppError(409, AUTH_MESSAGES.emailTaken, 'email_taken');
  const now = deps.clock.now();
  const { publicUrl } = deps.config;
  await deps.db.transaction().execute(async (trx) => {
    await retireTokens(trx, user.id, now, ['change_email']); // only the latest request counts
    const token = await issueToken(trx, {
      userId: user.id,
      purpose: 'change_email',
      payload: { newEmail },
      now,
    });
    await queueAccountMail(
      trx,
      deps.config,
      newEmail,
      emailChangeVerificationMail({ publicUrl, token, newEmail }),
    );
    await queueAccountMail(
      trx,
      deps.config,
      user.email,
      emailChangeNoticeMail({ publicUrl, newEmail, time: now }),
    );
  });
}

export function validatePasswordChange(input: { currentPassword: string; newPassword: string }): void {
  if (!input.currentPassword || !input.newPassword)
    throw badRequest(AUTH_MESSAGES.fillAllFields, 'missing_fields');
  validateNewPassword(input.newPassword);
}

/** Changes the password after checking the current one; every other session ends, this one stays. */
export async function changePassword(
  deps: FeatureDeps,
  auth: { user: AccountUser; sessionId: string },
  input: { currentPassword: string; newPassword: string },
): Promise<void> {
  const currentHash = await findPasswordHash(deps.db, auth.user.id);
  if (!currentHash) throw badRequest(USER_MESSAGES.noPassword, 'no_password');
  if (!(await verifyPassword(currentHash, input.currentPassword))) {
    throw badRequest(USER_MESSAGES.currentPasswordIncorrect, 'wrong_password');
  }
  const passwordHash = await hashPassword(input.newPassword);
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    await setPasswordHash(trx, auth.user.id, passwordHash, now);
    await retireTokens(trx, auth.user.id, now, ['reset']);
    await deleteUserSessions(trx, auth.user.id, auth.sessionId);
    await queueAccountMail(
      trx,
      deps.config,
      auth.user.email,
      passwordChangedMail({ publicUrl: deps.config.publicUrl, time: now }),
    );
  });
}
