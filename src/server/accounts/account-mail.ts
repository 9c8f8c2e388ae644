import type { Config } from '../config.ts';
import type { Executor } from '../db/executor.ts';
import type { TokenPurpose } from '../db/schema.ts';
import { enqueueMail } from '../mail/outbox.ts';
import type { RenderedMail } from '../mail/templates.ts';
import { hashSecret, newSecretToken } from './credentials.ts';
import { insertToken } from './tokens.repo.ts';

/** How long each kind of one-time token lives (docs/architecture.md §6). */
export const TOKEN_TTL_MS: Record<TokenPurpose, number> = {
  verify: 24 * 3600_000,
  change_email: 24 * 3600_000,
  reset: 30 * 60_000,
  oauth_ticket: 60_000,
  // "This wasn't me" on an email-change notice: it must outlive the change link, because a
  // notice is often read late (docs/decisions/0033-email-change-needs-password.md).
  email_change_cancel: 7 * 24 * 3600_000,
};

/**
 * Issues a one-time token for `purpose` and returns the raw value (stored only as its hash).
 * Callers put it in a link or ticket and forget it; it is never logged.
 */
export async function issueToken(
  db: Executor,
  values: { userId: string; purpose: TokenPurpose; payload?: Record<string, string>; now: Date },
): Promise<string> {
  const token = newSecretToken();
  await insertToken(db, {
    hash: hashSecret(token),
    userId: values.userId,
    purpose: values.purpose,
    payload: values.payload,
    now: values.now,
    expiresAt: new Date(values.now.getTime() + TOKEN_TTL_MS[values.purpose]),
  });
  return token;
}

/** Queues an account mail inside the caller's transaction: both commit or neither does. */
export async function queueAccountMail(
  db: Executor,
  config: Config,
  to: string,
  mail: RenderedMail,
): Promise<void> {
  await enqueueMail(
    db,
    { priority: 'system', to: [to], subject: mail.subject, html: mail.html, text: mail.text },
    { messageIdDomain: config.mailDomain },
  );
}
