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
 * The user's billing fields with the row locked until the transaction ends: customer creation,
 * sync and webhooks for one user run one at a time, so the last writer has read Stripe last.
 */
export async function lockBillingRow(trx: Executor, userId: string): Promise<BillingRow | undefined> {
  const row = await trx
    .selectFrom('users')
    .select(columns)
    .where('id', '=', userId)
    .forUpdate()
    .executeTakeFirst();
  return row && toRow(row);
}

export async function lockBillingRowByCustomer(
  trx: Executor,
  customerId: string,
): Promise<BillingRow | undefined> {
  const row = await trx
    .selectFrom('users')
    .select(columns)
    .where('stripe_customer_id', '=', customerId)
    .forUpdate()
    .executeTakeFirst();
  return row && toRow(row);
}

export async function setCustomerId(
  db: Executor,
  userId: string,
  customerId: string,
  now: Date,
): Promise<void> {
  await db
    .updateTable('users')
    .set({ stripe_customer_id: customerId, updated_at: now })
    .where('id', '=', userId)
    .execute();
}

export async function writeBillingState(
  db: Executor,
  userId: string,
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
    .where('id', '=', userId)
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
