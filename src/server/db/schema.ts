import type { ColumnType, Generated } from 'kysely';
import type { Plan, SubscriptionStatus } from '../../shared/plans.ts';
import type { Check } from '../../shared/contract/checks.ts';

/**
 * Table types for Kysely. Each feature adds its tables here, next to its migration.
 * `Generated` columns have database defaults; `ColumnType<Select, Insert, Update>` narrows writes.
 */

export interface AppMetaTable {
  key: string;
  value: string;
  created_at: ColumnType<Date, never, never>;
}

/** `unconfirmed`: a second attempt whose outcome is unknown; not retried again (migration 0009). */
export type OutboxState = 'queued' | 'sending' | 'sent' | 'retry_wait' | 'failed' | 'unconfirmed';

/** One message to one recipient (migrations 0002, 0009). */
export interface MailOutboxTable {
  id: Generated<string>;
  priority: number;
  state: Generated<OutboxState>;
  message_id: string;
  /** One address (rows settled before migration 0009 may hold several). */
  to_addresses: string[];
  reply_to: string | null;
  /** Null when the content is the email's (`email_id`): stored once, not per recipient. */
  subject: string | null;
  html: string | null;
  text: string | null;
  email_id: string | null;
  attempts: Generated<number>;
  next_attempt_at: Generated<Date>;
  lease_until: Date | null;
  locked_by: string | null;
  /** When the current attempt was claimed, by PostgreSQL's clock. */
  claimed_at: Date | null;
  /** The current attempt sent the message's final "." (it may have been accepted). */
  final_dot_at: Date | null;
  uncertain: Generated<boolean>;
  /** Attempts whose outcome is unknown; the second ends in `unconfirmed`. */
  uncertain_attempts: Generated<number>;
  last_error_code: number | null;
  last_error: string | null;
  created_at: Generated<Date>;
  sent_at: Date | null;
}

export interface CaughtMailHeader {
  name: string;
  value: string;
}

/** Mail caught by the local SMTP catcher (migration 0003). */
export interface CaughtMailTable {
  id: Generated<string>;
  message_id: string | null;
  envelope_from: string | null;
  from_header: string;
  to_addresses: string[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: ColumnType<CaughtMailHeader[], string, string>;
  size: number;
  received_at: Generated<Date>;
}

/** Accounts (migration 0004). */
export interface UsersTable {
  id: Generated<string>;
  email: string;
  password_hash: string | null;
  verified_at: Date | null;
  plan: Generated<Plan>;
  subscription_status: Generated<SubscriptionStatus>;
  stripe_customer_id: string | null;
  stripe_subscription_id: string | null;
  current_period_end: Date | null;
  cancel_at_period_end: Generated<boolean>;
  login_alerts: Generated<boolean>;
  last_login_alert_at: Date | null;
  /** The devices (hashes of IP and browser) that had a login alert lately, with when (migration 0026). */
  login_alert_devices: ColumnType<Record<string, string> | null, string | null, string | null>;
  /** Client ids the compatibility check scores (migration 0012); null: the default set. */
  target_clients: string[] | null;
  /** Mail the owner each review decision on a shared email (migration 0018). */
  review_notifications: Generated<boolean>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export type OAuthProviderName = 'google' | 'github';

export interface OAuthAccountsTable {
  id: Generated<string>;
  provider: OAuthProviderName;
  provider_user_id: string;
  user_id: string;
  email: string | null;
  created_at: Generated<Date>;
}

export interface SessionsTable {
  id: Generated<string>;
  user_id: string;
  /** SHA-256 of the bearer token; the token itself is never stored. */
  token_hash: Buffer;
  created_at: Date;
  last_seen_at: Date;
  expires_at: Date;
  ip: string | null;
  user_agent: string | null;
}

/** Personal API keys (docs/decisions/0073-personal-api-keys.md). */
export interface ApiKeysTable {
  id: Generated<string>;
  user_id: string;
  name: string;
  /** SHA-256 of the key; the key itself is never stored. */
  key_hash: Buffer;
  /** The first characters of the key, for display. */
  prefix: string;
  created_at: Date;
  last_used_at: Date | null;
}

export type TokenPurpose = 'verify' | 'reset' | 'change_email' | 'oauth_ticket' | 'email_change_cancel';

export interface TokensTable {
  id: Generated<string>;
  /** SHA-256 of the token sent to the user. */
  hash: Buffer;
  user_id: string;
  purpose: TokenPurpose;
  payload: ColumnType<Record<string, string> | null, string | null, string | null>;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

export interface RateLimitsTable {
  key: string;
  window_start: Date;
  count: number;
}

export interface CaptchaRedemptionsTable {
  challenge_id: string;
  expires_at: Date;
}

/** Failed sign-ins per (account, client address) (migration 0011). */
export interface SignInThrottleTable {
  key: string;
  failures: number;
  next_attempt_at: Date;
  updated_at: Date;
}

/** Browsers that signed in to an account: the device cookie's SHA-256 (migration 0011). */
export interface KnownDevicesTable {
  user_id: string;
  device_hash: Buffer;
  created_at: Date;
  last_used_at: Date;
}

/** Sent emails and usage (migration 0005). */
export interface EmailsTable {
  id: Generated<string>;
  user_id: string;
  /** Recipients joined by commas, as the spec's Email.to. */
  to_addresses: string;
  subject: string;
  /** The HTML as sent (after inlining, when asked). */
  html: string;
  /**
   * The distinct words of `html`, which history search's trigram index is on (migration 0023,
   * src/server/db/search-words.ts); filled by a trigger when an insert leaves them out.
   */
  search_words: Generated<string>;
  inline_css: Generated<boolean>;
  created_at: Generated<Date>;
  /** Source and message as sent (migration 0010); null on emails sent before it. */
  /** The source's language: 'mjml' since migration 0013. */
  format: Generated<'html' | 'mjml'>;
  /** Merge-tag syntax and sample data of the source (migration 0013); null: none. */
  template_syntax: 'handlebars' | 'liquid' | 'mailchimp' | null;
  template_data: ColumnType<Record<string, unknown> | null, string | null, string | null>;
  /** The HTML as written, when inlining changed it (null: the same as `html`). */
  source_html: string | null;
  /** The subject as written, when it differs from `subject` (migration 0025; null: the same). */
  source_subject: string | null;
  text_override: string | null;
  text_part: string | null;
  headers: ColumnType<EmailHeader[] | null, string | null, string | null>;
  mail_from: string | null;
  html_bytes: number | null;
  message_bytes: number | null;
  /** The pre-send checklist as computed at sending (migration 0012); null on emails sent before it. */
  checks: ColumnType<Check[] | null, string | null, string | null>;
  /** The thread's first version's id; filled with the row's own id when left out (migration 0016). */
  thread_id: Generated<string>;
  /** 1, 2, 3… within the thread (migration 0016). */
  version: Generated<number>;
  /** Deleted by its owner while a delivery still needed it; purged once all have settled (migration 0009). */
  deleted_at: Date | null;
}

export interface EmailHeader {
  name: string;
  value: string;
}

/** One public link per thread, with its settings (migration 0018). */
export interface EmailSharesTable {
  thread_id: string;
  user_id: string;
  slug: string;
  created_at: Date;
  /** Null: never expires. */
  expires_at: Date | null;
  /** The length the expiry was set for (1, 7 or 30 days; migration 0022); null: never, or not kept. */
  expires_in_days: number | null;
  /** argon2id of the viewing password; null: no password. */
  password_hash: string | null;
  /** Signs the link's viewer tokens; renewed on a password change and a rotation. */
  viewer_secret: Generated<Buffer>;
  views: Generated<number>;
  last_viewed_at: Date | null;
}

export type ReviewDecision = 'approved' | 'changes_requested' | 'comment';

/** What reviewers said about a version of a thread (migration 0018). */
export interface EmailReviewsTable {
  id: Generated<string>;
  thread_id: string;
  /** The thread's owner. */
  user_id: string;
  version: number;
  name: string;
  decision: ReviewDecision;
  comment: string | null;
  pin_x: number | null;
  pin_y: number | null;
  pin_width: number | null;
  created_at: Date;
}

/** The highest version number a thread has had, kept while any of its versions remains (migration 0028). */
export interface EmailThreadNumbersTable {
  thread_id: string;
  last_version: number;
}

/** The stored top of an email as sent, one per mode (migration 0021). */
export interface EmailThumbnailsTable {
  email_id: string;
  mode: 'light' | 'dark';
  png: Buffer;
  created_at: Generated<Date>;
}

export interface UsageCountersTable {
  user_id: string;
  month: ColumnType<Date, string, string>;
  count: number;
}

export interface UsageLedgerTable {
  id: Generated<number>;
  user_id: string;
  email_id: string | null;
  /** Sends before migration 0009: their one outbox row. Since then a send is found by `email_id`. */
  outbox_id: string | null;
  month: ColumnType<Date, string, string>;
  created_at: Generated<Date>;
  refunded_at: Date | null;
}

export interface SendRateTable {
  user_id: string;
  minute: Date;
  count: number;
}

/** Stripe webhook events already applied (migration 0007). */
export interface StripeEventsTable {
  id: string;
  type: string;
  customer_id: string | null;
  received_at: Generated<Date>;
}

export interface Database {
  app_meta: AppMetaTable;
  mail_outbox: MailOutboxTable;
  caught_mail: CaughtMailTable;
  users: UsersTable;
  oauth_accounts: OAuthAccountsTable;
  sessions: SessionsTable;
  tokens: TokensTable;
  rate_limits: RateLimitsTable;
  captcha_redemptions: CaptchaRedemptionsTable;
  sign_in_throttle: SignInThrottleTable;
  known_devices: KnownDevicesTable;
  emails: EmailsTable;
  email_shares: EmailSharesTable;
  email_reviews: EmailReviewsTable;
  email_thread_numbers: EmailThreadNumbersTable;
  email_thumbnails: EmailThumbnailsTable;
  usage_counters: UsageCountersTable;
  usage_ledger: UsageLedgerTable;
  send_rate: SendRateTable;
  stripe_events: StripeEventsTable;
  api_keys: ApiKeysTable;
}
