import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { forbidden, tooManyRequests } from '../../http/errors.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import type { TransformPool } from '../../prepare/transform-pool.ts';
import { SEND_MESSAGES } from '../../../shared/contract/email.ts';
import type { Plan } from '../../../shared/plans.ts';
import { insertEmail } from './email.repo.ts';
import { checkEmailInput, prepareEmail, type EmailInput } from './email-input.ts';
import {
  hasMonthlySend,
  monthOf,
  nextMonthStart,
  recordSend,
  takeMinuteSend,
  takeMonthlySend,
} from './usage.repo.ts';

export interface Sender {
  id: string;
  email: string;
  plan: Plan;
  verified: boolean;
}

export type SendInput = EmailInput;

function formatResetDate(at: Date): string {
  return at.toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}

/**
 * A test send (docs/spec.md §5, docs/decisions/0052-limits-before-work.md):
 * 1. the cheap checks (verified, fields, sizes, recipients);
 * 2. the limits, before any heavy work: the monthly allowance is looked at (a user who has none
 *    left costs one read), then the per-minute rate is taken (it counts every send that gets as far
 *    as processing, so it also bounds how often one user can make the server work);
 * 3. the one door, `prepare`, on the transform pool (inlining, text part, measuring);
 * 4. ONE transaction: take the monthly allowance, store the email, queue its delivery, record the
 *    charge. Any failure rolls all of it back, so a rejected send is never charged.
 */
export async function sendTestEmail(
  deps: { db: Db; config: Config; clock: Clock; transforms: TransformPool },
  sender: Sender,
  input: SendInput,
): Promise<{ id: string }> {
  const { db, config, clock } = deps;
  if (!sender.verified) throw forbidden(SEND_MESSAGES.unverified, 'email_unverified');
  const recipients = checkEmailInput(input, { requireTo: true });

  const now = clock.now();
  const month = monthOf(now);
  const minute = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
  const isPro = sender.plan === 'pro';
  const perMinute = isPro ? config.proSendsPerMinute : config.freeSendsPerMinute;
  const monthly = isPro ? config.proMonthlyLimit : config.freeMonthlyLimit;
  const monthlyLimitReached = () => {
    const resets = nextMonthStart(now);
    return tooManyRequests(
      isPro
        ? `Fair-use limit reached: ${monthly} sends per month on the Pro plan. It resets on ${formatResetDate(resets)}.`
        : `Free plan limit reached: ${monthly} sends per month. It resets on ${formatResetDate(resets)}; upgrade to Pro for unlimited sends.`,
      'monthly_limit_reached',
      (resets.getTime() - now.getTime()) / 1000,
    );
  };

  if (!(await hasMonthlySend(db, sender.id, month, monthly))) throw monthlyLimitReached();
  if (!(await takeMinuteSend(db, sender.id, minute, perMinute))) {
    const wait = Math.max(1, Math.ceil((minute.getTime() + 60_000 - now.getTime()) / 1000));
    throw tooManyRequests(
      `Sending too fast: the ${isPro ? 'Pro' : 'Free'} plan allows ${perMinute} sends per minute. ` +
        `Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
      'send_rate_limited',
      wait,
    );
  }

  const prepared = await prepareEmail(deps, input, { to: recipients[0]!, replyTo: sender.email });

  return db.transaction().execute(async (trx) => {
    // Looked at above, taken here: two sends racing for the last one of the month get one each way.
    if (!(await takeMonthlySend(trx, sender.id, month, monthly))) throw monthlyLimitReached();
    const email = await insertEmail(trx, {
      userId: sender.id,
      to: recipients.join(', '),
      subject: prepared.subject,
      html: prepared.html,
      inlineCss: input.inlineCss,
      createdAt: now,
      message: {
        sourceHtml: prepared.html === input.html ? null : input.html,
        textOverride: input.text?.trim() ? input.text : null,
        textPart: prepared.text,
        headers: prepared.headers,
        mailFrom: config.mailFrom,
        htmlBytes: prepared.bytes.html,
        messageBytes: prepared.bytes.message,
      },
    });
    const outbox = await enqueueMail(
      trx,
      {
        priority: isPro ? 'pro' : 'free',
        to: recipients,
        subject: prepared.subject,
        html: prepared.html,
        text: prepared.text,
        replyTo: sender.email,
        emailId: email.id,
      },
      { messageIdDomain: config.mailDomain },
    );
    await recordSend(trx, { userId: sender.id, emailId: email.id, outboxId: outbox.id, month });
    return { id: email.id };
  });
}
