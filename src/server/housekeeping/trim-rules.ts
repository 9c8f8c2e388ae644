import { sql, type RawBuilder } from 'kysely';
import { SESSION_IDLE_MS } from '../accounts/sessions.ts';

/**
 * What the housekeeping job trims: every table that only grows and whose old rows nobody needs
 * (docs/decisions/0023-housekeeping-job.md). History is never trimmed: emails (only those their
 * owner deleted go, once delivered), the usage ledger and monthly counters, Stripe events, and the
 * delivery rows of emails that still exist.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

export const RETENTION = {
  /** Per-minute send counters: only the current minute counts; an hour covers clock skew between processes. */
  sendRateMs: HOUR,
  /** Used or expired links and tickets stay a day after expiry for support questions. */
  tokensAfterExpiryMs: DAY,
  /** Rate-limit windows: every rule's window is an hour or less. */
  rateLimitWindowsMs: 2 * DAY,
  /** Caught mail: the newest messages of the last month, what a developer looks back on. */
  caughtMailCount: 500,
  caughtMailMs: 30 * DAY,
  /** Delivered or failed system mail (and that of deleted emails): a month of delivery records. */
  settledMailMs: 30 * DAY,
  /** Sign-in failures of a pair that has not tried for a day start again from zero anyway. */
  signInThrottleMs: DAY,
  /** A device cookie lives a year from its last sign-in; after that the browser is not known. */
  knownDevicesMs: 365 * DAY,
} as const;

export interface TrimRule {
  /** The table, and what the log line calls its rows. */
  table:
    | 'send_rate'
    | 'sessions'
    | 'tokens'
    | 'rate_limits'
    | 'captcha_redemptions'
    | 'caught_mail'
    | 'mail_outbox'
    | 'emails'
    | 'sign_in_throttle'
    | 'known_devices';
  /** `select ctid from <table> … limit <limit>`: the next batch of rows to delete. */
  batch: (now: Date, limit: number) => RawBuilder<unknown>;
}

const before = (now: Date, ms: number) => new Date(now.getTime() - ms);

export const TRIM_RULES: readonly TrimRule[] = [
  {
    table: 'send_rate',
    batch: (now, limit) =>
      sql`select ctid from send_rate where minute < ${before(now, RETENTION.sendRateMs)} limit ${limit}`,
  },
  {
    // Past their absolute expiry, or unused for longer than the idle limit: no request can use them.
    table: 'sessions',
    batch: (now, limit) =>
      sql`select ctid from sessions
           where expires_at <= ${now} or last_seen_at <= ${before(now, SESSION_IDLE_MS)}
           limit ${limit}`,
  },
  {
    table: 'tokens',
    batch: (now, limit) =>
      sql`select ctid from tokens where expires_at <= ${before(now, RETENTION.tokensAfterExpiryMs)} limit ${limit}`,
  },
  {
    table: 'rate_limits',
    batch: (now, limit) =>
      sql`select ctid from rate_limits
           where window_start < ${before(now, RETENTION.rateLimitWindowsMs)} limit ${limit}`,
  },
  {
    // An expired challenge is refused before its redemption is looked up, so the row guards nothing.
    table: 'captcha_redemptions',
    batch: (now, limit) => sql`select ctid from captcha_redemptions where expires_at < ${now} limit ${limit}`,
  },
  {
    // Older than a month, or beyond the newest RETENTION.caughtMailCount.
    table: 'caught_mail',
    batch: (now, limit) =>
      sql`select ctid from caught_mail
           where received_at < ${before(now, RETENTION.caughtMailMs)}
              or (received_at, id) < (select received_at, id from caught_mail
                                       order by received_at desc, id desc
                                       offset ${RETENTION.caughtMailCount - 1} limit 1)
           limit ${limit}`,
  },
  {
    // Emails their owner deleted while a delivery still read their content
    // (docs/decisions/0038-one-outbox-row-per-recipient.md), once every delivery has settled.
    table: 'emails',
    batch: (_now, limit) =>
      sql`select ctid from emails e
           where e.deleted_at is not null
             and not exists (select 1 from mail_outbox o
                              where o.email_id = e.id and o.state in ('queued', 'sending', 'retry_wait'))
           limit ${limit}`,
  },
  {
    // Only settled rows (a queued mail is never lost), and only those no email shows: system mail,
    // and the deliveries of emails their owner deleted. An email's own delivery row is history.
    table: 'mail_outbox',
    batch: (now, limit) =>
      sql`select ctid from mail_outbox o
           where o.state in ('sent', 'failed', 'unconfirmed')
             and o.created_at < ${before(now, RETENTION.settledMailMs)}
             and (o.email_id is null or not exists (select 1 from emails e where e.id = o.email_id))
           limit ${limit}`,
  },
  {
    table: 'sign_in_throttle',
    batch: (now, limit) =>
      sql`select ctid from sign_in_throttle
           where updated_at < ${before(now, RETENTION.signInThrottleMs)} limit ${limit}`,
  },
  {
    table: 'known_devices',
    batch: (now, limit) =>
      sql`select ctid from known_devices
           where last_used_at < ${before(now, RETENTION.knownDevicesMs)} limit ${limit}`,
  },
];
