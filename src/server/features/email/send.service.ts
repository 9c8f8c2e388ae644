import { Buffer } from 'node:buffer';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { AppError, badRequest, forbidden, tooManyRequests } from '../../http/errors.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import { DEFAULT_SUBJECT, MAX_HTML_BYTES, SEND_MESSAGES } from '../../../shared/contract/email.ts';
import type { Plan } from '../../../shared/plans.ts';
import { parseRecipients } from '../../../shared/recipients.ts';
import { insertEmail } from './email.repo.ts';
import { inlineCss } from './inline-css.ts';
import { monthOf, nextMonthStart, recordSend, takeMinuteSend, takeMonthlySend } from './usage.repo.ts';

export interface Sender {
  id: string;
  email: string;
  plan: Plan;
  verified: boolean;
}

export interface SendInput {
  to: string;
  subject: string;
  html: string;
  inlineCss: boolean;
}

/** Strips CR/LF (header injection) and surrounding blanks; empty becomes the spec's default. */
export function cleanSubject(subject: string): string {
  const clean = subject.replace(/[\r\n]+/g, ' ').trim();
  return clean === '' ? DEFAULT_SUBJECT : clean;
}

function formatResetDate(at: Date): string {
  return at.toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}

/**
 * A test send (docs/spec.md §5): validate, then in ONE transaction take the per-minute rate and the
 * monthly allowance, store the email, queue its delivery and record the charge. Any failure rolls
 * all of it back, so a rejected send leaves nothing behind.
 */
export async function sendTestEmail(
  deps: { db: Db; config: Config; clock: Clock },
  sender: Sender,
  input: SendInput,
): Promise<{ id: string }> {
  const { db, config, clock } = deps;
  if (!sender.verified) throw forbidden(SEND_MESSAGES.unverified, 'email_unverified');
  if (!input.to.trim() || !input.html.trim()) {
    throw badRequest(`${SEND_MESSAGES.missingTitle}: ${SEND_MESSAGES.missingDetail}`, 'missing_fields');
  }
  if (Buffer.byteLength(input.html, 'utf8') > MAX_HTML_BYTES) {
    throw new AppError(413, 'HTML content is too large: the limit is 1 MB', 'html_too_large');
  }
  const parsed = parseRecipients(input.to);
  if (!parsed.ok) {
    if (parsed.reason === 'too_many') {
      throw badRequest(
        `${SEND_MESSAGES.tooManyTitle}: ${SEND_MESSAGES.tooManyDetail}`,
        'too_many_recipients',
      );
    }
    if (parsed.reason === 'missing') {
      throw badRequest(`${SEND_MESSAGES.missingTitle}: ${SEND_MESSAGES.missingDetail}`, 'missing_fields');
    }
    throw badRequest(
      `Invalid recipient: "${parsed.invalid}" is not a plain email address (use name@example.com)`,
      'invalid_recipient',
    );
  }

  const subject = cleanSubject(input.subject);
  const html = input.inlineCss ? inlineCss(input.html) : input.html;
  if (Buffer.byteLength(html, 'utf8') > MAX_HTML_BYTES) {
    throw new AppError(413, 'HTML content is too large after inlining: the limit is 1 MB', 'html_too_large');
  }

  const now = clock.now();
  const month = monthOf(now);
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const isPro = sender.plan === 'pro';
  const perMinute = isPro ? config.proSendsPerMinute : config.freeSendsPerMinute;
  const monthly = isPro ? config.proMonthlyLimit : config.freeMonthlyLimit;

  return db.transaction().execute(async (trx) => {
    if (!(await takeMinuteSend(trx, sender.id, minute, perMinute))) {
      const wait = Math.max(1, Math.ceil((minute.getTime() + 60_000 - now.getTime()) / 1000));
      throw tooManyRequests(
        `Sending too fast: the ${isPro ? 'Pro' : 'Free'} plan allows ${perMinute} sends per minute. ` +
          `Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
        'send_rate_limited',
      );
    }
    if (!(await takeMonthlySend(trx, sender.id, month, monthly))) {
      const resets = formatResetDate(nextMonthStart(now));
      throw tooManyRequests(
        isPro
          ? `Fair-use limit reached: ${monthly} sends per month on the Pro plan. It resets on ${resets}.`
          : `Free plan limit reached: ${monthly} sends per month. It resets on ${resets}; upgrade to Pro for unlimited sends.`,
        'monthly_limit_reached',
      );
    }
    const email = await insertEmail(trx, {
      userId: sender.id,
      to: parsed.recipients.join(', '),
      subject,
      html,
      inlineCss: input.inlineCss,
      createdAt: now,
    });
    // One message per recipient, each referencing the email for its content
    // (docs/decisions/0038-one-outbox-row-per-recipient.md); the send is charged once.
    await enqueueMail(
      trx,
      { priority: isPro ? 'pro' : 'free', to: parsed.recipients, replyTo: sender.email, emailId: email.id },
      { messageIdDomain: config.mailDomain },
    );
    await recordSend(trx, { userId: sender.id, emailId: email.id, month });
    return { id: email.id };
  });
}
