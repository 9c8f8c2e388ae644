import { createHash } from 'node:crypto';
import { AUTH_MESSAGES } from '../../../shared/contract/auth.ts';
import { isPlainAddress } from '../../../shared/recipients.ts';
import { issueToken, queueAccountMail } from '../../accounts/account-mail.ts';
import { normaliseEmail, validateNewPassword } from '../../accounts/account-rules.ts';
import {
  browserBinding,
  hashPassword,
  hashSecret,
  isWellFormedToken,
  newSecretToken,
  passwordFingerprint,
  verifyPassword,
} from '../../accounts/credentials.ts';
import { startSession, type ClientInfo } from '../../accounts/sessions.ts';
import { deleteSession, deleteUserSessions } from '../../accounts/sessions.repo.ts';
import { deleteUserApiKeys } from '../../accounts/api-keys.repo.ts';
import {
  consumeToken,
  findTokenOwner,
  retirePendingLinks,
  retireTokens,
} from '../../accounts/tokens.repo.ts';
import {
  claimLoginAlert,
  findCredentialsByEmail,
  findUserByEmail,
  findUserById,
  insertUser,
  lockAccount,
  markVerified,
  setEmail,
  setPasswordHash,
  type AccountUser,
} from '../../accounts/users.repo.ts';
import type { FeatureDeps } from '../../app-deps.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import type { Executor } from '../../db/executor.ts';
import { AppError, badRequest, unauthorized } from '../../http/errors.ts';
import {
  loginAlertMail,
  passwordChangedMail,
  passwordResetMail,
  verificationMail,
} from '../../mail/templates.ts';
import { redeemCaptcha } from './captcha.service.ts';
import { deleteIdentitiesSince } from './identities.repo.ts';
import { rememberDevice } from './known-devices.repo.ts';
import { admitSignInAttempt, deviceHashOf } from './sign-in-throttle.ts';
import { describeUserAgent } from './user-agent.ts';

/** Rules and transactions of sign-up, sign-in, sessions, verification and password reset. */

/**
 * Login alerts go out at most this often per account and device (its IP and browser): a sign-in
 * from another device is reported however soon after the last alert.
 */
export const LOGIN_ALERT_MIN_GAP_MS = 10 * 60_000;

// ---------- validation (routes call these before rate limits, so bad input costs nothing) ----------

/** Sign-up input rules, in the order the form shows them; the captcha is checked afterwards. */
export function validateSignUp(input: { email: string; password: string }): {
  email: string;
  password: string;
} {
  const email = normaliseEmail(input.email);
  if (!email || !input.password) throw badRequest(AUTH_MESSAGES.fillAllFields, 'missing_fields');
  validateNewPassword(input.password);
  if (!isPlainAddress(email)) throw badRequest(AUTH_MESSAGES.invalidEmail, 'invalid_email');
  return { email, password: input.password };
}

export function validateSignIn(input: { email: string; password: string }): {
  email: string;
  password: string;
} {
  const email = normaliseEmail(input.email);
  if (!email || !input.password) throw badRequest(AUTH_MESSAGES.fillAllFields, 'missing_fields');
  return { email, password: input.password };
}

// ---------- sessions ----------

/**
 * A sign-in's new session plus, when the user asked for them, a rate-limited login alert, in the
 * caller's transaction, which holds the user's row lock (lockAccount) and has checked under it
 * that the credential used is still current.
 */
async function openSession(
  trx: Executor,
  deps: FeatureDeps,
  userId: string,
  client: ClientInfo,
  now: Date,
): Promise<string> {
  const token = await startSession(trx, userId, client, now);
  const browser = describeUserAgent(client.userAgent);
  const device = createHash('sha256').update(`${client.ip}\n${browser}`).digest('base64url');
  const alert = await claimLoginAlert(trx, userId, now, LOGIN_ALERT_MIN_GAP_MS, device);
  if (alert) {
    await queueAccountMail(
      trx,
      deps.config,
      alert.email,
      loginAlertMail({ publicUrl: deps.config.publicUrl, time: now, ip: client.ip, browser }),
    );
  }
  return token;
}

async function reloadUser(db: Executor, userId: string): Promise<AccountUser> {
  const user = await findUserById(db, userId);
  if (!user) throw unauthorized();
  return user;
}

export async function signOut(
  deps: FeatureDeps,
  auth: { sessionId: string; user: { id: string } },
): Promise<void> {
  await deleteSession(deps.db, auth.sessionId);
  deps.sessions.forgetUser(auth.user.id);
}

// ---------- sign-up / sign-in ----------

export async function signUp(
  deps: FeatureDeps,
  input: { email: string; password: string; captchaToken?: string | undefined },
  client: ClientInfo,
): Promise<{ user: AccountUser; token: string }> {
  if (deps.config.captcha.provider === 'altcha' && !(await redeemCaptcha(deps, input.captchaToken))) {
    throw badRequest(AUTH_MESSAGES.completeCaptcha, 'captcha_required');
  }
  // Sign-up returns a session, so an existing email cannot be hidden here
  // (docs/decisions/0016-existing-email-at-signup.md).
  if (await findUserByEmail(deps.db, input.email))
    throw new AppError(409, AUTH_MESSAGES.emailTaken, 'email_taken');
  const passwordHash = await hashPassword(input.password);
  const now = deps.clock.now();
  try {
    return await deps.db.transaction().execute(async (trx) => {
      const user = await insertUser(trx, { email: input.email, passwordHash, verifiedAt: null, now });
      await queueVerificationLink(trx, deps.config, user, now);
      const token = await startSession(trx, user.id, client, now);
      return { user, token };
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw new AppError(409, AUTH_MESSAGES.emailTaken, 'email_taken');
    throw err;
  }
}

/**
 * Unknown email, social-only account and wrong password all answer the same 401 after the same
 * work (a dummy hash is verified when there is no real one), and are throttled alike
 * (sign-in-throttle.ts). `deviceKey` is this browser's device cookie, if it has one; a success
 * returns the value to keep there (a new one for a browser that had none), so this browser is a
 * known device of the account from now on.
 */
export async function signIn(
  deps: FeatureDeps,
  input: { email: string; password: string },
  client: ClientInfo,
  deviceKey: string | undefined,
): Promise<{ user: AccountUser; token: string; deviceKey: string }> {
  const found = await findCredentialsByEmail(deps.db, input.email);
  const deviceHash = deviceHashOf(deviceKey);
  const attempt = await admitSignInAttempt(deps, {
    email: input.email,
    ip: client.ip,
    userId: found?.user.id,
    deviceHash,
  });
  const ok = await verifyPassword(found?.passwordHash ?? null, input.password);
  const refused = () => unauthorized(AUTH_MESSAGES.invalidCredentials, 'invalid_credentials');
  if (!found || !ok) throw refused();
  const now = deps.clock.now();
  const token = await deps.db.transaction().execute(async (trx) => {
    // The password was checked against a row read without a lock. A reset, a password change,
    // a provider claim or an email change since then ended the account's sessions, and this one
    // must not outlive them: under the row lock they take too, the address and the hash must
    // still be the ones checked (docs/decisions/0020-provider-email-claims-unverified-account.md).
    const account = await lockAccount(trx, found.user.id);
    if (!account || account.passwordHash !== found.passwordHash || account.email !== found.user.email)
      throw refused();
    return openSession(trx, deps, found.user.id, client, now);
  });
  await attempt.succeeded();
  const key = deviceHash ? deviceKey! : newSecretToken();
  await rememberDevice(deps.db, found.user.id, hashSecret(key), deps.clock.now());
  return { user: found.user, token, deviceKey: key };
}

/**
 * Trades a one-time social sign-in ticket for a session, only in the browser that finished the
 * flow: `browserKey` is the cookie the callback set there, and the ticket carries its hash
 * (docs/decisions/0032-sign-in-ticket-bound-to-browser.md). Without it the ticket stays unused.
 */
export async function exchangeTicket(
  deps: FeatureDeps,
  ticket: string,
  browserKey: string | undefined,
  client: ClientInfo,
): Promise<{ user: AccountUser; token: string }> {
  const invalid = () => badRequest(AUTH_MESSAGES.invalidTicket, 'invalid_ticket');
  if (!isWellFormedToken(ticket) || !browserKey || !isWellFormedToken(browserKey)) throw invalid();
  const now = deps.clock.now();
  // Spent and turned into a session under the account's row lock (consumeToken): a reset, a
  // password change or a claim that retires the ticket and ends the sessions comes wholly before
  // (the ticket is gone) or after (and ends this session).
  const { userId, token } = await deps.db.transaction().execute(async (trx) => {
    const consumed = await consumeToken(trx, hashSecret(ticket), ['oauth_ticket'], now, {
      key: 'browser',
      value: browserBinding(browserKey),
    });
    if (!consumed) throw invalid();
    return { userId: consumed.userId, token: await openSession(trx, deps, consumed.userId, client, now) };
  });
  return { user: await reloadUser(deps.db, userId), token };
}

// ---------- email verification ----------

/** Issues a verification token for the user's current address and queues the mail carrying it. */
async function queueVerificationLink(
  trx: Executor,
  config: FeatureDeps['config'],
  user: { id: string; email: string },
  now: Date,
): Promise<void> {
  const token = await issueToken(trx, {
    userId: user.id,
    purpose: 'verify',
    payload: { email: user.email.toLowerCase() },
    now,
  });
  await queueAccountMail(trx, config, user.email, verificationMail({ publicUrl: config.publicUrl, token }));
}

/** Sends a fresh verification link; silently does nothing for an already verified address. */
export async function resendVerification(deps: FeatureDeps, user: AccountUser): Promise<void> {
  if (user.verified) return;
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    await queueVerificationLink(trx, deps.config, user, now);
  });
}

/**
 * Uses a verification link. A sign-up link verifies the address it was sent to (and only while it
 * is still the account's address); an email-change link switches the address, retires every other
 * open link and ends every session, so the user signs in again with the new address.
 */
export async function verifyEmail(deps: FeatureDeps, token: string): Promise<{ emailChanged: boolean }> {
  const invalid = () => badRequest(AUTH_MESSAGES.expiredVerificationLink, 'invalid_token');
  let changed: string | undefined;
  if (!isWellFormedToken(token)) throw invalid();
  const now = deps.clock.now();
  try {
    const result = await deps.db.transaction().execute(async (trx) => {
      // Under the account's row lock (consumeToken), like a sign-in: one with the old address
      // either opens its session before the sessions end here or finds the address changed.
      const consumed = await consumeToken(trx, hashSecret(token), ['verify', 'change_email'], now);
      if (!consumed) throw invalid();
      changed = consumed.userId;
      const user = consumed.account;
      if (consumed.purpose === 'verify') {
        if (consumed.payload?.email !== user.email.toLowerCase()) throw invalid();
        await markVerified(trx, user.id, now);
        return { emailChanged: false };
      }
      const newEmail = consumed.payload?.newEmail;
      if (!newEmail) throw invalid();
      await setEmail(trx, user.id, newEmail, now);
      // Not the "this wasn't me" link of the old address: it must still undo this change.
      await retirePendingLinks(trx, user.id, now);
      await deleteUserSessions(trx, user.id);
      return { emailChanged: true, email: newEmail };
    });
    if (changed) deps.sessions.forgetUser(changed);
    if (changed && result.email)
      void deps.accountEvents.emailChanged({ userId: changed, email: result.email });
    return { emailChanged: result.emailChanged };
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError(409, 'This email address is now used by another account', 'email_taken');
    }
    throw err;
  }
}

// ---------- password reset ----------

/**
 * Issues a reset link if the account exists. Runs after the answer has been sent, so the answer
 * (body, status and timing) is the same whether or not the account exists.
 */
export async function sendPasswordReset(deps: FeatureDeps, email: string): Promise<void> {
  const user = await findUserByEmail(deps.db, email);
  if (!user) return;
  const now = deps.clock.now();
  await deps.db.transaction().execute(async (trx) => {
    await retireTokens(trx, user.id, now, ['reset']); // only the newest link works
    const token = await issueToken(trx, { userId: user.id, purpose: 'reset', now });
    await queueAccountMail(
      trx,
      deps.config,
      user.email,
      passwordResetMail({ publicUrl: deps.config.publicUrl, token }),
    );
  });
}

/**
 * Sets a new password from a reset link: ends every session, revokes every API key (a reset takes
 * the account back, from whoever had it), retires every pending link (verification, reset, email
 * change, sign-in ticket), marks the address verified (the link proved it), and tells the user by
 * mail.
 */
export async function resetPassword(deps: FeatureDeps, token: string, newPassword: string): Promise<void> {
  const invalid = () => badRequest(AUTH_MESSAGES.expiredResetLink, 'invalid_token');
  validateNewPassword(newPassword);
  if (!isWellFormedToken(token)) throw invalid();
  const hash = hashSecret(token);
  // Cheap check first, so dead links do not cost an argon2 hash.
  if (!(await findTokenOwner(deps.db, hash, ['reset'], deps.clock.now()))) throw invalid();
  const passwordHash = await hashPassword(newPassword);
  const now = deps.clock.now();
  const userId = await deps.db.transaction().execute(async (trx) => {
    // Under the account's row lock (consumeToken): a sign-in with the old password either
    // opens its session before the sessions end here or finds the password changed.
    const consumed = await consumeToken(trx, hash, ['reset'], now);
    if (!consumed) throw invalid();
    const user = consumed.account;
    await setPasswordHash(trx, user.id, passwordHash, now);
    await markVerified(trx, user.id, now);
    await retirePendingLinks(trx, user.id, now);
    await deleteUserSessions(trx, user.id);
    await deleteUserApiKeys(trx, user.id);
    await queueAccountMail(
      trx,
      deps.config,
      user.email,
      passwordChangedMail({ publicUrl: deps.config.publicUrl, time: now }),
    );
    return user.id;
  });
  deps.sessions.forgetUser(userId);
}

// ---------- "this wasn't me" on an email-change notice ----------

/**
 * Uses the link mailed to the old address when an email change was asked for
 * (docs/decisions/0033-email-change-needs-password.md). Whoever asked had a session, perhaps a
 * stolen one, so in one transaction:
 * - every pending link is retired (the change link above all), every session ends and every API
 *   key is revoked;
 * - if the change was already confirmed, the address this link was sent to is put back, the
 *   social identities linked since the request are unlinked, and a password set since the
 *   request is removed: the owner sets a new one with "Forgot password", at their own address.
 */
export async function cancelEmailChange(
  deps: FeatureDeps,
  token: string,
): Promise<{ restored: boolean; email: string; passwordRemoved: boolean }> {
  const invalid = () => badRequest(AUTH_MESSAGES.expiredCancelLink, 'invalid_token');
  let changed: string | undefined;
  if (!isWellFormedToken(token)) throw invalid();
  const now = deps.clock.now();
  try {
    const result = await deps.db.transaction().execute(async (trx) => {
      // Under the account's row lock (consumeToken), taken before the sessions and keys end:
      // a sign-in, ticket or API key made meanwhile is either ended here or sees what changed.
      const consumed = await consumeToken(trx, hashSecret(token), ['email_change_cancel'], now);
      const oldEmail = consumed?.payload?.oldEmail;
      const requestedAt = new Date(consumed?.payload?.requestedAt ?? '');
      if (!consumed || !oldEmail || Number.isNaN(requestedAt.getTime())) throw invalid();
      const user = consumed.account;
      changed = user.id;
      await retirePendingLinks(trx, user.id, now);
      await deleteUserSessions(trx, user.id);
      await deleteUserApiKeys(trx, user.id);
      if (user.email.toLowerCase() === oldEmail.toLowerCase())
        return { restored: false, email: user.email, passwordRemoved: false };
      await setEmail(trx, user.id, oldEmail, now);
      await deleteIdentitiesSince(trx, user.id, requestedAt);
      const passwordRemoved = passwordFingerprint(user.passwordHash) !== (consumed.payload?.password ?? '');
      if (passwordRemoved) await setPasswordHash(trx, user.id, null, now);
      return { restored: true, email: oldEmail, passwordRemoved };
    });
    if (changed) deps.sessions.forgetUser(changed);
    if (changed && result.restored)
      void deps.accountEvents.emailChanged({ userId: changed, email: result.email });
    return result;
  } catch (err) {
    if (isUniqueViolation(err)) {
      throw new AppError(
        409,
        'Your previous email address now belongs to another account, so it cannot be put back. Contact support.',
        'email_taken',
      );
    }
    throw err;
  }
}
