import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import { isPlainAddress } from '../../../shared/recipients.ts';
import { issueToken, queueAccountMail } from '../../accounts/account-mail.ts';
import { normaliseEmail, validateNewPassword } from '../../accounts/account-rules.ts';
import { hashPassword, passwordFingerprint, verifyPassword } from '../../accounts/credentials.ts';
import { deleteUserSessions, sessionExists } from '../../accounts/sessions.repo.ts';
import { retirePendingLinks, retireTokens } from '../../accounts/tokens.repo.ts';
import {
  findPasswordHash,
  findUserByEmail,
  lockAccount,
  setPasswordHash,
  type AccountUser,
} from '../../accounts/users.repo.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import type { RequestAuth } from '../../http/auth.ts';
import type { Executor } from '../../db/executor.ts';
import { badRequest, forbidden, unauthorized } from '../../http/errors.ts';
import {
  emailChangeNoticeMail,
  emailChangeVerificationMail,
  emailInUseNoticeMail,
  passwordChangedMail,
} from '../../mail/templates.ts';
import { setLoginAlerts } from './user.repo.ts';

/**
 * The signed-in user's account settings. The accounts data and rules it shares with sign-in
 * (users, sessions, tokens, credentials, account mail) live in src/server/accounts; the
 * auth feature's email-change link is what finally switches the address.
 */

export const USER_MESSAGES = {
  missingNewEmail: AUTH_MESSAGES.missingNewEmail,
  sameEmail: 'This is already your email address',
  currentPasswordIncorrect: AUTH_MESSAGES.currentPasswordIncorrect,
  noPassword:
    'Your account does not have a password yet. Use "Forgot password" on the sign-in page to set one.',
} as const;

export async function updateLoginAlerts(
  deps: FeatureDeps,
  user: AccountUser,
  enabled: boolean,
): Promise<boolean> {
  const value = await setLoginAlerts(deps.db, user.id, enabled, deps.clock.now());
  deps.sessions.forgetUser(user.id);
  return value;
}

/** How recent a sign-in must be to change the email of an account without a password. */
export const REAUTH_WINDOW_MS = 10 * 60_000;

export function validateEmailChange(
  user: AccountUser,
  input: { newEmail: string; currentPassword?: string | undefined },
): string {
  const newEmail = normaliseEmail(input.newEmail);
  if (!newEmail) throw badRequest(USER_MESSAGES.missingNewEmail, 'missing_fields');
  if (user.hasPassword && !input.currentPassword)
    throw badRequest(AUTH_MESSAGES.currentPasswordRequired, 'password_required');
  if (!isPlainAddress(newEmail)) throw badRequest(AUTH_MESSAGES.invalidEmail, 'invalid_email');
  if (newEmail.toLowerCase() === user.email.toLowerCase())
    throw badRequest(USER_MESSAGES.sameEmail, 'same_email');
  return newEmail;
}

/**
 * Starts an email change (docs/decisions/0033-email-change-needs-password.md). The person asking
 * must prove they own the account: the current password, or, without one, a sign-in in the last
 * REAUTH_WINDOW_MS. The answer is the same whether or not the new address is free; in one
 * transaction:
 * - free: a confirmation link to the new address (the address changes only when it is used,
 *   auth's verifyEmail);
 * - taken: a note to that address's owner instead, and no link;
 * - either way: a notice to the current address with a "this wasn't me" link.
 */
export async function requestEmailChange(
  deps: FeatureDeps,
  auth: RequestAuth,
  input: { newEmail: string; currentPassword?: string | undefined },
): Promise<void> {
  const { user } = auth;
  const now = deps.clock.now();
  const currentHash = user.hasPassword ? await findPasswordHash(deps.db, user.id) : null;
  if (currentHash) {
    if (!(await verifyPassword(currentHash, input.currentPassword ?? '')))
      throw badRequest(AUTH_MESSAGES.currentPasswordIncorrect, 'wrong_password');
  } else if (now.getTime() - auth.signedInAt.getTime() > REAUTH_WINDOW_MS) {
    throw forbidden(AUTH_MESSAGES.reauthRequired, 'reauth_required');
  }
  const taken = await findUserByEmail(deps.db, input.newEmail);
  const { publicUrl } = deps.config;
  const newEmail = input.newEmail;
  await deps.db.transaction().execute(async (trx) => {
    await lockCurrentCredentials(trx, auth, currentHash);
    await retireTokens(trx, user.id, now, ['change_email']); // only the latest request counts
    if (taken) {
      await queueAccountMail(trx, deps.config, taken.email, emailInUseNoticeMail({ publicUrl, time: now }));
    } else {
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
    }
    const cancelToken = await issueToken(trx, {
      userId: user.id,
      purpose: 'email_change_cancel',
      payload: {
        oldEmail: user.email,
        newEmail,
        requestedAt: now.toISOString(),
        password: passwordFingerprint(currentHash),
      },
      now,
    });
    await queueAccountMail(
      trx,
      deps.config,
      user.email,
      emailChangeNoticeMail({ publicUrl, newEmail, time: now, cancelToken }),
    );
  });
}

/**
 * Takes the account's row lock (users.repo.ts lockAccount) for the rest of the transaction and
 * checks that what the request proved still holds: its session was not ended and the password
 * checked (or its absence) is still the account's. Both were read without the lock; a password
 * reset, a provider claim or "this wasn't me" since then took the account back, and a change
 * made now would outlive it (docs/decisions/0020-provider-email-claims-unverified-account.md).
 */
async function lockCurrentCredentials(
  trx: Executor,
  auth: { user: { id: string }; sessionId: string },
  checkedHash: string | null,
): Promise<void> {
  const account = await lockAccount(trx, auth.user.id);
  if (!account || !(await sessionExists(trx, auth.sessionId, auth.user.id))) throw unauthorized();
  if (account.passwordHash !== checkedHash)
    throw badRequest(USER_MESSAGES.currentPasswordIncorrect, 'wrong_password');
}

export function validatePasswordChange(input: { currentPassword: string; newPassword: string }): void {
  if (!input.currentPassword || !input.newPassword)
    throw badRequest(AUTH_MESSAGES.fillAllFields, 'missing_fields');
  validateNewPassword(input.newPassword);
}

/**
 * Changes the password after checking the current one; every other session ends, this one stays,
 * and every pending link (verification, reset, email change, sign-in ticket) is retired.
 */
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
    await lockCurrentCredentials(trx, auth, currentHash);
    await setPasswordHash(trx, auth.user.id, passwordHash, now);
    // A stolen session may have left links behind (an email change above all): none survives.
    await retirePendingLinks(trx, auth.user.id, now);
    await deleteUserSessions(trx, auth.user.id, auth.sessionId);
    await queueAccountMail(
      trx,
      deps.config,
      auth.user.email,
      passwordChangedMail({ publicUrl: deps.config.publicUrl, time: now }),
    );
  });
  deps.sessions.forgetUser(auth.user.id);
}
