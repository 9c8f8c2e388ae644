import { sql } from 'kysely';
import type { Plan, SubscriptionStatus } from '../../../shared/plans.ts';
import type { Executor } from '../../db/executor.ts';
import type { BillingState } from './plan-rules.ts';

/** SQL for billing: the subscription fields on `users` and the `stripe_events` ledger. */

export interface BillingRow {
  id: string;
  email: string;
  plan: Plan;
  subscriptionStatus: SubscriptionStatus;
  stripeCustomerId: string | null;
  stripeSubscriptionId: string | null;
  currentPeriodEnd: Date | null;
  cancelAtPeriodEnd: boolean;
}

const columns = [
  'id',
  'email',
  'plan',
  'subscription_status',
  'stripe_customer_id',
  'stripe_subscription_id',
  'current_period_end',
  'cancel_at_period_end',
] as const;

function toRow(r: {
  id: string;
  email: string;
  plan: Plan;
  subscription_status: SubscriptionStatus;
  stripe_customer_id: string | null;
  stripe_subscription_id: string | null;
  current_period_end: Date | null;
  cancel_at_period_end: boolean;
}): BillingRow {
  return {
    id: r.id,
    email: r.email,
    plan: r.plan,
    subscriptionStatus: r.subscription_status,
    stripeCustomerId: r.stripe_customer_id,
    stripeSubscriptionId: r.stripe_subscription_id,
    currentPeriodEnd: r.current_period_end,
    cancelAtPeriodEnd: r.cancel_at_period_end,
  };
}

export async function findBillingRow(db: Executor, userId: string): Promise<BillingRow | undefined> {
  const row = await db.selectFrom('users').select(columns).where('id', '=', userId).executeTakeFirst();
  return row && toRow(row);
}

/**
 * The user's billing fields, read after taking the user's billing lock (a PostgreSQL advisory lock
 * held until the transaction ends): refreshes from Stripe (sync, webhooks, a checkout paid before
 * its webhook) for one user run one at a time, so the last writer has read Stripe last. Not the
 * row's lock: the user's sends, sign-ins and settings never wait for Stripe
 * (docs/decisions/0126-history-search-bounded.md, amended).
 */
export async function lockBilling(trx: Executor, userId: string): Promise<BillingRow | undefined> {
  await sql`select pg_advisory_xact_lock(hashtext('billing'), hashtext(${userId}))`.execute(trx);
  return findBillingRow(trx, userId);
}

/** lockBilling for the user whose Stripe customer this is; undefined if it is no user's. */
export async function lockBillingByCustomer(
  trx: Executor,
  customerId: string,
): Promise<BillingRow | undefined> {
  const owner = await trx
    .selectFrom('users')
    .select('id')
    .where('stripe_customer_id', '=', customerId)
    .executeTakeFirst();
  if (!owner) return undefined;
  const row = await lockBilling(trx, owner.id);
  return row?.stripeCustomerId === customerId ? row : undefined;
}

/**
 * Stores the user's Stripe customer if the stored one is still `expected` (null: none yet), and
 * answers the account's email then; undefined when another request stored a customer first (or
 * the account is gone). One customer per user without holding anything while Stripe answers.
 */
export async function claimCustomerId(
  db: Executor,
  userId: string,
  expected: string | null,
  customerId: string,
  now: Date,
): Promise<{ email: string } | undefined> {
  return db
    .updateTable('users')
    .set({ stripe_customer_id: customerId, updated_at: now })
    .where('id', '=', userId)
    .where(sql<boolean>`stripe_customer_id is not distinct from ${expected}`)
    .returning('email')
    .executeTakeFirst();
}

/**
 * Writes what Stripe reported for the user's customer over the row as `read` (in the billing lock),
 * unless it changed since: a deleted customer replaced meanwhile (that customer's subscriptions no
 * longer count), or an operator's set-plan, which wins (src/server/admin.ts).
 */
export async function writeBillingState(
  db: Executor,
  read: BillingRow & { stripeCustomerId: string },
  state: BillingState,
  now: Date,
): Promise<void> {
  await db
    .updateTable('users')
    .set({
      plan: state.plan,
      subscription_status: state.subscriptionStatus,
      stripe_subscription_id: state.subscriptionId,
      cancel_at_period_end: state.cancelAtPeriodEnd,
      current_period_end: state.currentPeriodEnd,
      updated_at: now,
    })
    .where('id', '=', read.id)
    .where('stripe_customer_id', '=', read.stripeCustomerId)
    .where('plan', '=', read.plan)
    .where('subscription_status', '=', read.subscriptionStatus)
    .where('cancel_at_period_end', '=', read.cancelAtPeriodEnd)
    .execute();
}

/**
 * Records a webhook event id; false when it was already recorded (a duplicate). Inside the
 * event's transaction: a concurrent copy waits here on the first one's uncommitted row, then
 * finds it and stops, so an event takes effect exactly once.
 */
export async function recordEvent(
  trx: Executor,
  event: { id: string; type: string; customerId: string | null },
  now: Date,
): Promise<boolean> {
  const row = await trx
    .insertInto('stripe_events')
    .values({ id: event.id, type: event.type, customer_id: event.customerId, received_at: now })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}
