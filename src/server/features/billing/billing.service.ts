import type { FastifyBaseLogger } from 'fastify';
import type Stripe from 'stripe';
import { BILLING_MESSAGES } from '../../../shared/contract/billing.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { SessionResolver } from '../../http/auth.ts';
import type { ConnectionTurns } from '../../db/connection-turns.ts';
import type { Db } from '../../db/database.ts';
import { effectivePlan } from '../../accounts/effective-plan.ts';
import { findUserById, type AccountUser } from '../../accounts/users.repo.ts';
import { isUuid } from '../../db/uuid.ts';
import { AppError, badRequest, tooManyRequests } from '../../http/errors.ts';
import {
  claimCustomerId,
  findBillingRow,
  lockBilling,
  lockBillingByCustomer,
  recordEvent,
  writeBillingState,
  type BillingRow,
} from './billing.repo.ts';
import { billingStateFor, stateToStore, type SubscriptionSnapshot } from './plan-rules.ts';

/**
 * Plans and billing with Stripe (docs/spec.md §1, docs/decisions/0017-billing-off.md). The plan follows what Stripe reports, never what the
 * browser or a webhook payload claims: every change re-reads the customer's subscriptions from
 * Stripe in the user's billing lock, so duplicates, retries and out-of-order deliveries all end
 * in the state Stripe has now. Returning from Checkout grants nothing by itself.
 *
 * A Stripe call can take a minute (stripe-client.ts), so the work that waits for one takes turns
 * (src/server/db/connection-turns.ts, docs/decisions/0126-history-search-bounded.md): one call of a
 * user's at a time, and all of them at most half the pool. Only a refresh from Stripe holds a
 * connection while it waits; customers and checkout sessions are made holding none.
 */

export interface BillingDeps {
  config: Config;
  db: Db;
  clock: Clock;
  /** Undefined when billing is off (no STRIPE_SECRET_KEY). */
  stripe: Stripe | undefined;
  /** Told after a plan change commits, so this process's session cache drops the old plan. */
  sessions?: Pick<SessionResolver, 'forgetUser'>;
  /** The process's turns for work that may hold a connection for seconds (FeatureDeps.slowTurns). */
  turns: ConnectionTurns;
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
  tooManyCalls: 'Too many billing requests at once: wait for your last one to finish.',
  tooManyEvents: 'Too many events for this customer at once: send this one again later.',
  notAnEvent: 'The Stripe event is not a JSON object',
  eventWithoutId: 'The Stripe event has no id',
  eventWithoutObject: 'The Stripe event has no data.object',
} as const;

/**
 * Runs a user's billing work that waits for Stripe in the user's turn: one at a time per process,
 * in order; with MAX_WAITING_TURNS already waiting the next is 429 `too_many_billing_requests`.
 */
function inUsersTurn<T>(deps: BillingDeps, userId: string, work: () => Promise<T>): Promise<T> {
  return deps.turns.run(`billing:${userId}`, work, () =>
    tooManyRequests(BILLING_ERRORS.tooManyCalls, 'too_many_billing_requests', 1),
  );
}

const unauthenticated = () => new AppError(401, 'Not authenticated', 'unauthenticated');

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

/** The customer as Stripe has it; undefined when Stripe no longer knows it. */
async function retrieveCustomer(stripe: Stripe, id: string, log: FastifyBaseLogger) {
  return callStripe(log, 'customer lookup', async () => {
    try {
      return await stripe.customers.retrieve(id);
    } catch (err) {
      if (isStripeError(err) && err.statusCode === 404) return undefined;
      throw err;
    }
  });
}

/**
 * The user's Stripe customer: created once and stored; reused afterwards. A stored customer that
 * was deleted in Stripe is replaced. Nothing is held while Stripe answers: the new customer is
 * stored only if the stored one is still the one read before (a user's requests in one process take
 * turns, so only another process can get there first); then that one is kept and this one deleted.
 */
async function ensureCustomer(
  deps: BillingDeps,
  stripe: Stripe,
  userId: string,
  log: FastifyBaseLogger,
): Promise<string> {
  const row = await findBillingRow(deps.db, userId);
  if (!row) throw unauthenticated();
  const stored = row.stripeCustomerId;
  if (stored) {
    const existing = await retrieveCustomer(stripe, stored, log);
    if (existing && !existing.deleted) return stored;
    log.warn({ customer: stored }, 'the stored Stripe customer no longer exists; creating a new one');
  }
  const customer = await callStripe(log, 'customer creation', () =>
    stripe.customers.create({ email: row.email, metadata: { userId: row.id } }),
  );
  const claimed = await claimCustomerId(deps.db, row.id, stored, customer.id, deps.clock.now());
  if (claimed) {
    // An email change confirmed meanwhile found no customer to tell (updateCustomerEmail).
    if (claimed.email !== row.email)
      await updateCustomerEmail(deps, { userId: row.id, email: claimed.email }, log).catch((err: unknown) =>
        log.warn({ err }, "could not give the Stripe customer the account's new email"),
      );
    return customer.id;
  }
  const winner = (await findBillingRow(deps.db, userId))?.stripeCustomerId;
  if (!winner) throw unauthenticated(); // the account was deleted meanwhile
  log.info(
    { customer: winner },
    'another request stored a Stripe customer first; deleting the one made here',
  );
  await callStripe(log, 'customer deletion', () => stripe.customers.del(customer.id)).catch((err: unknown) =>
    log.warn({ err, customer: customer.id }, 'an unused Stripe customer is left in Stripe'),
  );
  return winner;
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
  const { publicUrl } = deps.config;
  return inUsersTurn(deps, user.id, async () => {
    const customer = await ensureCustomer(deps, stripe, user.id, log);
    // A checkout paid before its webhook arrived: there is nothing to buy. The plan is stored as a
    // sync stores it (read again in the billing lock). A cancelled subscription whose paid period is
    // over (its "deleted" event late) sells again.
    const state = billingStateFor(await customerSubscriptions(stripe, customer, log));
    if (state && effectivePlan(state, deps.clock.now()) === 'pro') {
      const row = await refreshUser(deps, stripe, user.id, log);
      deps.sessions?.forgetUser(user.id);
      if (row && effectivePlan(row, deps.clock.now()) === 'pro')
        throw new AppError(409, BILLING_ERRORS.alreadyPro, 'already_pro');
    }
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
    // Only the newest checkout can be paid (docs/decisions/0118-one-open-checkout-and-the-customers-email.md):
    // every other one still open (another tab, a second click) is expired, or both could be paid,
    // two subscriptions billing for one plan.
    const open = await callStripe(log, 'checkout session list', () =>
      stripe.checkout.sessions.list({ customer, status: 'open', limit: 100 }),
    );
    for (const earlier of open.data)
      if (earlier.id !== session.id) await expireCheckout(stripe, earlier.id, log);
    return session.url;
  });
}

/** Expires an open checkout session; one no longer open (paid, or expired by another request) is left as it is. */
async function expireCheckout(stripe: Stripe, id: string, log: FastifyBaseLogger): Promise<void> {
  await callStripe(log, 'checkout session expiry', async () => {
    try {
      await stripe.checkout.sessions.expire(id);
    } catch (err) {
      if (isStripeError(err) && err.statusCode === 400) {
        const session = await stripe.checkout.sessions.retrieve(id);
        if (session.status !== 'open') return;
      }
      throw err;
    }
  });
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

/** Re-reads the customer's subscriptions and stores the resulting plan (caller holds the billing lock). */
async function refreshFromStripe(
  deps: BillingDeps,
  trx: Parameters<typeof writeBillingState>[0],
  stripe: Stripe,
  row: BillingRow & { stripeCustomerId: string },
  log: FastifyBaseLogger,
): Promise<void> {
  const now = deps.clock.now();
  const state = stateToStore(row, await customerSubscriptions(stripe, row.stripeCustomerId, log), now);
  if (state) await writeBillingState(trx, row, state, now);
}

/**
 * The user's plan as Stripe reports it now, stored; answers the row as it is then. Holds a
 * connection (and the user's billing lock) while Stripe answers: call it in the user's turn.
 */
async function refreshUser(
  deps: BillingDeps,
  stripe: Stripe,
  userId: string,
  log: FastifyBaseLogger,
): Promise<BillingRow | undefined> {
  return deps.db.transaction().execute(async (trx) => {
    const row = await lockBilling(trx, userId);
    if (!row?.stripeCustomerId) return row;
    await refreshFromStripe(deps, trx, stripe, { ...row, stripeCustomerId: row.stripeCustomerId }, log);
    return findBillingRow(trx, userId);
  });
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
  await inUsersTurn(deps, userId, () => refreshUser(deps, stripe, userId, log));
  deps.sessions?.forgetUser(userId);
  const [user, row] = await Promise.all([findUserById(deps.db, userId), findBillingRow(deps.db, userId)]);
  if (!user || !row) throw unauthenticated();
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
 *
 * That transaction holds a connection while Stripe answers, so a customer's events take turns as
 * a user's calls do, keyed by the customer (Stripe's deliveries never queue behind the user's own
 * requests); past MAX_WAITING_TURNS an event is answered 429 and Stripe sends it again later.
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
  let signed: unknown;
  try {
    signed = stripe.webhooks.constructEvent(rawBody, signature, settings.webhookSecret);
  } catch {
    log.warn('rejected a Stripe webhook with an invalid signature');
    throw badRequest(BILLING_ERRORS.badSignature, 'invalid_signature');
  }
  const { event, object } = checkedEvent(signed);
  if (!HANDLED_EVENTS.has(event.type)) return 'ignored';

  const customerId = idOf(object.customer);
  const apply = () => applyEvent(deps, stripe, event, object, customerId, log);
  const outcome = customerId
    ? await deps.turns.run(`stripe-customer:${customerId}`, apply, () =>
        tooManyRequests(BILLING_ERRORS.tooManyEvents, 'too_many_events', 1),
      )
    : await apply(); // no customer, nothing to ask Stripe
  if (outcome === 'unknown_customer')
    log.warn({ event: event.id, type: event.type }, 'Stripe event for a customer of no user');
  else log.info({ event: event.id, type: event.type, outcome }, 'Stripe event');
  return outcome;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The id, type and object of a validly signed body. Stripe always sends an id and a data.object;
 * a body without them is refused 400 (invalid_event) rather than failing on them later.
 */
function checkedEvent(signed: unknown): {
  event: { id: string; type: string };
  object: Record<string, unknown>;
} {
  if (!isObject(signed)) throw badRequest(BILLING_ERRORS.notAnEvent, 'invalid_event');
  if (typeof signed.id !== 'string' || signed.id === '')
    throw badRequest(BILLING_ERRORS.eventWithoutId, 'invalid_event');
  const object = isObject(signed.data) ? signed.data.object : undefined;
  if (!isObject(object)) throw badRequest(BILLING_ERRORS.eventWithoutObject, 'invalid_event');
  return { event: { id: signed.id, type: String(signed.type) }, object };
}

async function applyEvent(
  deps: BillingDeps,
  stripe: Stripe,
  event: { id: string; type: string },
  object: Record<string, unknown>,
  customerId: string | null,
  log: FastifyBaseLogger,
): Promise<WebhookOutcome> {
  const now = deps.clock.now();
  let refreshed: string | undefined;
  const outcome = await deps.db.transaction().execute(async (trx): Promise<WebhookOutcome> => {
    if (!(await recordEvent(trx, { id: event.id, type: event.type, customerId }, now))) return 'duplicate';
    if (!customerId) return 'unknown_customer';
    let row = await lockBillingByCustomer(trx, customerId);
    if (!row && event.type === 'checkout.session.completed') {
      // The customer is stored before Checkout starts; this only links one whose row lost it.
      const metadata = object.metadata;
      const ref = object.client_reference_id ?? (isObject(metadata) ? metadata.userId : undefined);
      if (typeof ref === 'string' && isUuid(ref)) {
        const candidate = await lockBilling(trx, ref);
        if (
          candidate &&
          candidate.stripeCustomerId === null &&
          (await claimCustomerId(trx, candidate.id, null, customerId, now))
        )
          row = { ...candidate, stripeCustomerId: customerId };
      }
    }
    if (!row?.stripeCustomerId) return 'unknown_customer';
    await refreshFromStripe(deps, trx, stripe, { ...row, stripeCustomerId: row.stripeCustomerId }, log);
    refreshed = row.id;
    return 'applied';
  });
  if (refreshed) deps.sessions?.forgetUser(refreshed);
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
