import type { FastifyBaseLogger } from 'fastify';
import type Stripe from 'stripe';
import { BILLING_MESSAGES } from '../../../shared/contract/billing.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { SessionResolver } from '../../http/auth.ts';
import type { Db } from '../../db/database.ts';
import { effectivePlan } from '../../accounts/effective-plan.ts';
import { findUserById, type AccountUser } from '../../accounts/users.repo.ts';
import { isUuid } from '../../db/uuid.ts';
import { AppError, badRequest } from '../../http/errors.ts';
import {
  findBillingRow,
  lockBillingRow,
  lockBillingRowByCustomer,
  recordEvent,
  setCustomerId,
  writeBillingState,
  type BillingRow,
} from './billing.repo.ts';
import { billingStateFor, type SubscriptionSnapshot } from './plan-rules.ts';

/**
 * Plans and billing with Stripe (docs/spec.md §1, docs/decisions/0017-billing-off.md). The plan follows what Stripe reports, never what the
 * browser or a webhook payload claims: every change re-reads the customer's subscriptions from
 * Stripe with the user's row locked, so duplicates, retries and out-of-order deliveries all end
 * in the state Stripe has now. Returning from Checkout grants nothing by itself.
 */

export interface BillingDeps {
  config: Config;
  db: Db;
  clock: Clock;
  /** Undefined when billing is off (no STRIPE_SECRET_KEY). */
  stripe: Stripe | undefined;
  /** Told after a plan change commits, so this process's session cache drops the old plan. */
  sessions?: Pick<SessionResolver, 'forgetUser'>;
}

export const BILLING_ERRORS = {
  alreadyPro: 'You already have the Pro plan. Use Manage Billing to change or cancel your subscription.',
  noBillingAccount: 'You have no billing account yet: upgrade to Pro first.',
  grantedPlan: 'Your Pro plan was granted by an administrator, so there is no billing to manage.',
  notConfigured: 'Billing is not fully configured on this server. Please contact the administrator.',
  provider: 'The payment provider could not be reached. Please try again in a moment.',
  missingSignature: 'Missing Stripe-Signature header',
  badSignature: 'Invalid webhook signature',
  webhookNotConfigured: 'Stripe webhooks are not configured on this server',
} as const;

export const billingDisabled = () => badRequest(BILLING_MESSAGES.disabled, 'billing_disabled');

/** The events that can change a plan; every other event is acknowledged and ignored. */
export const HANDLED_EVENTS = new Set([
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.payment_failed',
  'invoice.paid',
]);

function requireStripe(deps: BillingDeps): { stripe: Stripe; settings: NonNullable<Config['stripe']> } {
  if (!deps.stripe || !deps.config.stripe) throw billingDisabled();
  return { stripe: deps.stripe, settings: deps.config.stripe };
}

function isStripeError(err: unknown): err is Stripe.errors.StripeError {
  return (
    typeof (err as { type?: unknown } | null)?.type === 'string' &&
    (err as { type: string }).type.startsWith('Stripe')
  );
}

/** Runs a Stripe call; a failure is logged with its detail and answered 502 without it. */
async function callStripe<T>(log: FastifyBaseLogger, what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!isStripeError(err)) throw err;
    log.error(
      { stripe: { type: err.type, code: err.code, status: err.statusCode, message: err.message } },
      `Stripe ${what} failed`,
    );
    throw new AppError(502, BILLING_ERRORS.provider, 'billing_provider_error');
  }
}

/** The user as requests see it: the stored plan with the period-end rule applied at `now`. */
export function withEffectivePlan(user: AccountUser, row: BillingRow, now: Date): AccountUser {
  return { ...user, plan: effectivePlan(row, now) };
}

// ---------- customers ----------

/**
 * The user's Stripe customer: created once and stored; reused afterwards. The row lock makes
 * concurrent requests of one user wait for the first one's customer instead of each creating
 * their own. A stored customer that was deleted in Stripe is replaced.
 */
async function ensureCustomer(
  deps: BillingDeps,
  stripe: Stripe,
  userId: string,
  log: FastifyBaseLogger,
): Promise<string> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await lockBillingRow(trx, userId);
    if (!row) throw new AppError(401, 'Not authenticated', 'unauthenticated');
    if (row.stripeCustomerId) {
      const stored = row.stripeCustomerId;
      const existing = await callStripe(log, 'customer lookup', async () => {
        try {
          return await stripe.customers.retrieve(stored);
        } catch (err) {
          if (isStripeError(err) && err.statusCode === 404) return undefined;
          throw err;
        }
      });
      if (existing && !existing.deleted) return stored;
      log.warn({ customer: stored }, 'the stored Stripe customer no longer exists; creating a new one');
    }
    const customer = await callStripe(log, 'customer creation', () =>
      stripe.customers.create({ email: row.email, metadata: { userId: row.id } }),
    );
    await setCustomerId(trx, row.id, customer.id, deps.clock.now());
    return customer.id;
  });
}

// ---------- checkout and portal ----------

export async function createCheckout(
  deps: BillingDeps,
  user: AccountUser,
  log: FastifyBaseLogger,
): Promise<string> {
  const { stripe, settings } = requireStripe(deps);
  if (user.plan === 'pro') throw new AppError(409, BILLING_ERRORS.alreadyPro, 'already_pro');
  if (!settings.priceProMonthly) {
    log.error('STRIPE_PRICE_PRO_MONTHLY is not set: checkout cannot start');
    throw new AppError(503, BILLING_ERRORS.notConfigured, 'billing_not_configured');
  }
  const price = settings.priceProMonthly;
  const customer = await ensureCustomer(deps, stripe, user.id, log);
  const { publicUrl } = deps.config;
  // In the user's row lock, so that two checkouts asked for at once are made one after the other.
  const url = await deps.db.transaction().execute(async (trx) => {
    const row = await lockBillingRow(trx, user.id);
    if (!row) throw new AppError(401, 'Not authenticated', 'unauthenticated');
    // A checkout paid before its webhook arrived: the plan is stored now, and there is nothing to
    // buy. A cancelled subscription whose paid period is over (its "deleted" event late) sells again.
    const state = billingStateFor(await customerSubscriptions(stripe, customer, log));
    if (state && effectivePlan(state, deps.clock.now()) === 'pro') {
      await writeBillingState(trx, row.id, state, deps.clock.now());
      return null;
    }
    // Only the newest checkout can be paid: one still open (another tab, a second click) is
    // expired, or both could be paid, two subscriptions billing for one plan.
    const open = await callStripe(log, 'checkout session list', () =>
      stripe.checkout.sessions.list({ customer, status: 'open', limit: 100 }),
    );
    for (const earlier of open.data)
      await callStripe(log, 'checkout session expiry', () => stripe.checkout.sessions.expire(earlier.id));
    const session = await callStripe(log, 'checkout session creation', () =>
      stripe.checkout.sessions.create({
        mode: 'subscription',
        customer,
        line_items: [{ price, quantity: 1 }],
        // Set by the server, never taken from the request: the webhook finds the user by them.
        client_reference_id: user.id,
        metadata: { userId: user.id },
        subscription_data: { metadata: { userId: user.id } },
        success_url: `${publicUrl}/app/account?payment=success`,
        cancel_url: `${publicUrl}/plan`,
      }),
    );
    if (!session.url) throw new AppError(502, BILLING_ERRORS.provider, 'billing_provider_error');
    return session.url;
  });
  if (url === null) {
    deps.sessions?.forgetUser(user.id);
    throw new AppError(409, BILLING_ERRORS.alreadyPro, 'already_pro');
  }
  return url;
}

/** The billing portal for the caller's own customer (the id comes from their row, never input). */
export async function createPortal(
  deps: BillingDeps,
  user: AccountUser,
  log: FastifyBaseLogger,
): Promise<string> {
  const { stripe } = requireStripe(deps);
  const row = await findBillingRow(deps.db, user.id);
  const customer = row?.stripeCustomerId;
  if (!customer) {
    throw badRequest(
      user.plan === 'pro' ? BILLING_ERRORS.grantedPlan : BILLING_ERRORS.noBillingAccount,
      'no_billing_account',
    );
  }
  const session = await callStripe(log, 'billing portal session creation', () =>
    stripe.billingPortal.sessions.create({ customer, return_url: `${deps.config.publicUrl}/app/account` }),
  );
  return session.url;
}

// ---------- reading Stripe ----------

function snapshot(s: Stripe.Subscription): SubscriptionSnapshot {
  return {
    id: s.id,
    status: s.status,
    created: s.created,
    cancel_at_period_end: s.cancel_at_period_end,
    cancel_at: s.cancel_at ?? null,
    itemPeriodEnds: (s.items?.data ?? [])
      .map((item) => item.current_period_end)
      .filter((n) => typeof n === 'number'),
  };
}

async function customerSubscriptions(
  stripe: Stripe,
  customer: string,
  log: FastifyBaseLogger,
): Promise<SubscriptionSnapshot[]> {
  const list = await callStripe(log, 'subscription list', () =>
    stripe.subscriptions.list({ customer, status: 'all', limit: 100 }),
  );
  return list.data.map(snapshot);
}

/** Re-reads the customer's subscriptions and stores the resulting plan (caller holds the row lock). */
async function refreshFromStripe(
  deps: BillingDeps,
  trx: Parameters<typeof writeBillingState>[0],
  stripe: Stripe,
  row: BillingRow & { stripeCustomerId: string },
  log: FastifyBaseLogger,
): Promise<void> {
  const state = billingStateFor(await customerSubscriptions(stripe, row.stripeCustomerId, log));
  if (state) await writeBillingState(trx, row.id, state, deps.clock.now());
}

/**
 * The account's new email address, given to its Stripe customer: Stripe mails receipts and failed
 * payments there, and the old address may now be anyone's (src/server/accounts/account-events.ts).
 */
export async function updateCustomerEmail(
  deps: BillingDeps,
  change: { userId: string; email: string },
  log: FastifyBaseLogger,
): Promise<void> {
  if (!deps.stripe) return;
  const stripe = deps.stripe;
  const customer = (await findBillingRow(deps.db, change.userId))?.stripeCustomerId;
  if (!customer) return;
  await callStripe(log, 'customer email update', () =>
    stripe.customers.update(customer, { email: change.email }),
  );
}

/** POST /api/billing/sync: the caller's plan as Stripe reports it now. */
export async function syncUser(
  deps: BillingDeps,
  userId: string,
  log: FastifyBaseLogger,
): Promise<AccountUser> {
  const { stripe } = requireStripe(deps);
  await deps.db.transaction().execute(async (trx) => {
    const row = await lockBillingRow(trx, userId);
    if (row?.stripeCustomerId)
      await refreshFromStripe(deps, trx, stripe, { ...row, stripeCustomerId: row.stripeCustomerId }, log);
  });
  deps.sessions?.forgetUser(userId);
  const [user, row] = await Promise.all([findUserById(deps.db, userId), findBillingRow(deps.db, userId)]);
  if (!user || !row) throw new AppError(401, 'Not authenticated', 'unauthenticated');
  return withEffectivePlan(user, row, deps.clock.now());
}

// ---------- webhooks ----------

export type WebhookOutcome = 'applied' | 'duplicate' | 'ignored' | 'unknown_customer';

function idOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  const id = (value as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : null;
}

/**
 * POST /api/billing/webhook. The signature is checked on the raw body; the event id is recorded
 * in the same transaction as its effect; the subscription is re-fetched from Stripe. A failure
 * rolls everything back (the id too), so Stripe's retry applies it later.
 */
export async function handleWebhook(
  deps: BillingDeps,
  rawBody: Buffer,
  signature: string | undefined,
  log: FastifyBaseLogger,
): Promise<WebhookOutcome> {
  const { stripe, settings } = requireStripe(deps);
  if (!settings.webhookSecret) {
    log.error('STRIPE_WEBHOOK_SECRET is not set: Stripe webhooks cannot be verified');
    throw new AppError(503, BILLING_ERRORS.webhookNotConfigured, 'webhook_not_configured');
  }
  if (!signature) throw badRequest(BILLING_ERRORS.missingSignature, 'invalid_signature');
  let event: Stripe.Event;
  try {
    event = stripe.webhooks.constructEvent(rawBody, signature, settings.webhookSecret);
  } catch {
    log.warn('rejected a Stripe webhook with an invalid signature');
    throw badRequest(BILLING_ERRORS.badSignature, 'invalid_signature');
  }
  if (!HANDLED_EVENTS.has(event.type)) return 'ignored';

  const object = event.data.object as unknown as Record<string, unknown>;
  const customerId = idOf(object.customer);
  const now = deps.clock.now();
  let refreshed: string | undefined;
  const outcome = await deps.db.transaction().execute(async (trx): Promise<WebhookOutcome> => {
    if (!(await recordEvent(trx, { id: event.id, type: event.type, customerId }, now))) return 'duplicate';
    let row = customerId ? await lockBillingRowByCustomer(trx, customerId) : undefined;
    if (!row && event.type === 'checkout.session.completed' && customerId) {
      // The customer is stored before Checkout starts; this only links one whose row lost it.
      const metadata = object.metadata as Record<string, unknown> | null | undefined;
      const ref = object.client_reference_id ?? metadata?.userId;
      if (typeof ref === 'string' && isUuid(ref)) {
        const candidate = await lockBillingRow(trx, ref);
        if (candidate && candidate.stripeCustomerId === null) {
          await setCustomerId(trx, candidate.id, customerId, now);
          row = { ...candidate, stripeCustomerId: customerId };
        }
      }
    }
    if (!row?.stripeCustomerId) return 'unknown_customer';
    await refreshFromStripe(deps, trx, stripe, { ...row, stripeCustomerId: row.stripeCustomerId }, log);
    refreshed = row.id;
    return 'applied';
  });
  if (refreshed) deps.sessions?.forgetUser(refreshed);
  if (outcome === 'unknown_customer')
    log.warn({ event: event.id, type: event.type }, 'Stripe event for a customer of no user');
  else log.info({ event: event.id, type: event.type, outcome }, 'Stripe event');
  return outcome;
}

// ---------- subscription details ----------

export async function subscriptionInfo(deps: BillingDeps, user: AccountUser) {
  const row = await findBillingRow(deps.db, user.id);
  return {
    billingEnabled: Boolean(deps.stripe && deps.config.stripe),
    plan: user.plan,
    status: user.subscriptionStatus,
    hasBillingAccount: Boolean(row?.stripeCustomerId),
    cancelAtPeriodEnd: row?.cancelAtPeriodEnd ?? false,
    currentPeriodEnd: row?.currentPeriodEnd ? row.currentPeriodEnd.toISOString() : null,
  };
}
