import type { QueryCreator } from 'kysely';
import { Buffer } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import type { Database } from '../../db/schema.ts';
import { AppError, forbidden, notFound, tooManyRequests } from '../../http/errors.ts';
import { spamCheck } from '../../checks/live.ts';
import { targetClientsOf } from '../../checks/target-clients.ts';
import type { MailHandoff } from '../../mail/handoff.ts';
import { enqueueMail } from '../../mail/outbox.ts';
import type { TransformPool } from '../../prepare/transform-pool.ts';
import { SEND_MESSAGES } from '../../../shared/contract/email.ts';
import type { TargetClientId } from '../../../shared/contract/checks.ts';
import type { Plan } from '../../../shared/plans.ts';
import { emailRow, findThreadId, THREAD_VERSION_INDEX } from './email.repo.ts';
import { checkEmailInput, checkTemplate, prepareEmail, type EmailInput } from './email-input.ts';
import {
  ledgerRow,
  monthOf,
  nextMonthStart,
  releaseMonthlySend,
  releaseRateSend,
  takeSend,
} from './usage.repo.ts';

export interface Sender {
  id: string;
  email: string;
  plan: Plan;
  verified: boolean;
}

export type SendInput = EmailInput & {
  /** Any version of one of the sender's emails: the send becomes its thread's next version. */
  parentId?: string;
};

/**
 * How many times a next version is stored again after another send took its number (the unique
 * index emails_thread_version): each try is one atomic statement, and one racer wins each round.
 */
const VERSION_TRIES = 8;

function formatResetDate(at: Date): string {
  return at.toLocaleDateString('en-US', { month: 'long', day: 'numeric', year: 'numeric', timeZone: 'UTC' });
}

/** What a send uses. */
export interface SendDeps {
  db: Db;
  config: Config;
  clock: Clock;
  transforms: TransformPool;
  /** This process's outbox worker, when it has one (src/server/mail/handoff.ts). */
  mailHandoff?: MailHandoff;
}

/**
 * A test send (docs/spec.md §5, docs/decisions/0052-limits-before-work.md):
 * 1. the cheap checks (verified, fields, sizes, recipients);
 * 2. the limits, taken before any heavy work: one send of the monthly allowance, then the
 *    per-minute rate (over it: the monthly send is given back). The rate counts every send that
 *    gets as far as processing, so it also bounds how often one user can make the server work; a
 *    user over either limit, even in a burst of parallel sends, reaches no processing;
 * 3. the one door, `prepare`, on the transform pool (inlining, text part, measuring);
 * 4. ONE statement: store the email, queue its delivery (or store it claimed by this process's
 *    worker and hand it over, src/server/mail/handoff.ts), record the charge.
 * The database sees two round trips per send: one for the limits, one for the rows
 * (docs/decisions/0071-send-in-two-statements.md).
 * A send refused by processing, or whose transaction fails, gives its monthly send back, so a
 * rejected send is never charged.
 */
export async function sendTestEmail(
  deps: SendDeps,
  sender: Sender,
  input: SendInput,
): Promise<{ id: string }> {
  const { db, config, clock } = deps;
  if (!sender.verified) throw forbidden(SEND_MESSAGES.unverified, 'email_unverified');
  const recipients = checkEmailInput(input, { requireTo: true });
  // The parent is looked up before the limits: a send to a missing email is refused uncharged.
  let threadId: string | undefined;
  if (input.parentId !== undefined) {
    threadId = await findThreadId(db, sender.id, input.parentId);
    if (threadId === undefined) throw notFound('Email not found');
  }

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

  const taken = await takeSend(db, { userId: sender.id, month, monthlyLimit: monthly, minute, perMinute });
  if (taken.outcome === 'none') throw monthlyLimitReached();
  if (taken.outcome === 'monthly') {
    await releaseRateSend(db, sender.id, minute);
    throw monthlyLimitReached();
  }
  if (taken.outcome === 'rate') {
    const wait = Math.max(1, Math.ceil((minute.getTime() + 60_000 - now.getTime()) / 1000));
    throw tooManyRequests(
      `Sending too fast: the ${isPro ? 'Pro' : 'Free'} plan allows ${perMinute} sends per minute. ` +
        `Try again in ${wait} second${wait === 1 ? '' : 's'}.`,
      'send_rate_limited',
      wait,
    );
  }

  try {
    const targetClients = targetClientsOf(taken.targetClients);
    return await storeAndQueue(deps, sender, input, recipients, { now, month, threadId, targetClients });
  } catch (err) {
    // The caller hears why the send failed, even if the database is why and the give-back fails too.
    await releaseMonthlySend(db, sender.id, month).catch(() => undefined);
    throw err;
  }
}

/** Steps 3 and 4 of `sendTestEmail`: any failure here gives the monthly send back. */
async function storeAndQueue(
  deps: SendDeps,
  sender: Sender,
  input: SendInput,
  recipients: string[],
  send: { now: Date; month: string; threadId: string | undefined; targetClients: TargetClientId[] },
): Promise<{ id: string }> {
  const { db, config } = deps;
  const { now, month, threadId, targetClients } = send;
  const isPro = sender.plan === 'pro';
  // The static checks run in the same transform job as prepare; spam, when configured, waits at
  // most SPAM_TIMEOUT_MS (src/server/checks/live.ts).
  const prepared = await prepareEmail(
    deps,
    sender.id,
    input,
    { to: recipients[0]!, replyTo: sender.email },
    { targetClients, rawMessage: config.spamdUrl !== null, searchWords: true },
  );
  const checks = [
    ...(prepared.checks ?? []),
    await spamCheck(prepared.message ? Buffer.from(prepared.message) : null, config.spamdUrl),
  ];

  // The email row, its outbox rows and its ledger row in one statement (data-modifying CTEs):
  // atomic without BEGIN/COMMIT, one round trip, and the body is written once, in `emails`; the
  // outbox rows reference it (docs/decisions/0038-one-outbox-row-per-recipient.md).
  const id = randomUUID();
  const email = emailRow(
    {
      userId: sender.id,
      to: recipients.join(', '),
      subject: prepared.subject,
      html: prepared.html,
      searchWords: prepared.searchWords,
      inlineCss: input.inlineCss,
      createdAt: now,
      format: input.format ?? 'html',
      template: checkTemplate(input.template),
      message: {
        sourceHtml: prepared.html === input.html ? null : input.html,
        sourceSubject: prepared.subject === (input.subject ?? '') ? null : (input.subject ?? ''),
        textOverride: input.text?.trim() ? input.text : null,
        textPart: prepared.text,
        headers: prepared.headers,
        mailFrom: config.mailFrom,
        htmlBytes: prepared.bytes.html,
        messageBytes: prepared.bytes.message,
      },
      checks,
      threadId,
    },
    id,
  );
  const statement = db
    .with('stored', (q) => q.insertInto('emails').values(email))
    .with('charged', (q) =>
      q.insertInto('usage_ledger').values(ledgerRow({ userId: sender.id, emailId: id, month })),
    );
  // The CTEs widen the query creator's table types, which enqueueMail does not need to know.
  const executor = statement as unknown as QueryCreator<Database>;
  const mail = {
    priority: isPro ? 'pro' : 'free',
    to: recipients,
    replyTo: sender.email,
    emailId: id,
  } as const;
  for (let attempt = 1; ; attempt++) {
    // This process's worker takes the mail as it is stored when it has room: no NOTIFY, no claim,
    // no reading the email back (src/server/mail/handoff.ts); otherwise any worker claims it.
    const reservation = deps.mailHandoff?.reserve(recipients.length);
    try {
      // One message per recipient, each referencing the email; the send is charged once.
      if (reservation) {
        const stored = await enqueueMail(executor, mail, {
          messageIdDomain: config.mailDomain,
          claimedBy: reservation.claim,
        });
        reservation.deliver(
          stored.map((m) => m.row),
          { subject: prepared.subject, html: prepared.html, text: prepared.text },
        );
      } else {
        await enqueueMail(executor, mail, { messageIdDomain: config.mailDomain });
      }
      return { id };
    } catch (err) {
      reservation?.cancel();
      // Another version of the thread was stored between this statement's snapshot and its
      // insert: nothing of this one was written, so the same statement runs again and reads the
      // new maximum.
      if (!isVersionTaken(err)) throw err;
      if (attempt >= VERSION_TRIES) {
        throw new AppError(
          409,
          'Other versions of this email were being sent at the same moment; please send again.',
          'version_conflict',
        );
      }
    }
  }
}

function isVersionTaken(err: unknown): boolean {
  const e = err as { code?: unknown; constraint?: unknown } | null;
  return e?.code === '23505' && e.constraint === THREAD_VERSION_INDEX;
}
