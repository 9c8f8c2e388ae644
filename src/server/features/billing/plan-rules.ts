import type { Plan, SubscriptionStatus } from '../../../shared/plans.ts';
import {
  effectivePlan,
  isGrantedPro,
  isLiveStatus,
  planForStatus,
  type PlanState,
} from '../../accounts/effective-plan.ts';

/**
 * How a Stripe subscription maps to our plan (docs/spec.md §1). Pure functions, no I/O: the
 * webhook and sync paths write the result to the user's row; the rule that depends on the time
 * of reading lives with the accounts (src/server/accounts/effective-plan.ts).
 */

/** Every subscription status Stripe reports. */
export type StripeSubscriptionStatus =
  'incomplete' | 'incomplete_expired' | 'trialing' | 'active' | 'past_due' | 'canceled' | 'unpaid' | 'paused';

/**
 * Our status for a Stripe status. A first payment that never completed (incomplete,
 * incomplete_expired) is no subscription at all; paused (a trial that ended without a payment
 * method) is shown like unpaid: the user has to add a payment method.
 */
export function statusFromStripe(status: string): SubscriptionStatus {
  switch (status as StripeSubscriptionStatus) {
    case 'active':
    case 'trialing':
    case 'past_due':
    case 'canceled':
    case 'unpaid':
      return status as SubscriptionStatus;
    case 'paused':
      return 'unpaid';
    case 'incomplete':
    case 'incomplete_expired':
    default:
      return 'none';
  }
}

/** The fields of a Stripe subscription the rules read (a subset of Stripe.Subscription). */
export interface SubscriptionSnapshot {
  id: string;
  status: string;
  created: number;
  cancel_at_period_end: boolean;
  cancel_at: number | null;
  /** Period ends of the subscription's items (Stripe keeps the period on each item). */
  itemPeriodEnds: number[];
}

export interface BillingState {
  plan: Plan;
  subscriptionStatus: SubscriptionStatus;
  subscriptionId: string | null;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: Date | null;
}

const RANK: Record<SubscriptionStatus, number> = {
  active: 5,
  trialing: 5,
  past_due: 4,
  unpaid: 3,
  canceled: 2,
  none: 1,
};

/**
 * The subscription that decides the plan when a customer has several (a new one after a
 * cancellation, a duplicate checkout): the one giving the most access, then the newest.
 */
export function pickSubscription<T extends SubscriptionSnapshot>(subscriptions: readonly T[]): T | undefined {
  let best: T | undefined;
  for (const s of subscriptions) {
    if (!best) {
      best = s;
      continue;
    }
    const a = RANK[statusFromStripe(s.status)];
    const b = RANK[statusFromStripe(best.status)];
    if (a > b || (a === b && s.created > best.created)) best = s;
  }
  return best;
}

/**
 * The state to store for a customer's subscriptions as Stripe reports them now, or undefined
 * when the customer has none, or only one whose first payment never completed: then the stored
 * plan is left alone (it may be an operator's grant).
 */
export function billingStateFor(subscriptions: readonly SubscriptionSnapshot[]): BillingState | undefined {
  const sub = pickSubscription(subscriptions);
  if (!sub) return undefined;
  const status = statusFromStripe(sub.status);
  if (status === 'none') return undefined;
  const periodEnd = sub.itemPeriodEnds.length > 0 ? Math.min(...sub.itemPeriodEnds) : null;
  // Stripe cancels either "at period end" or at a set time (cancel_at); both end Pro then.
  const endsAt = sub.cancel_at ?? (sub.cancel_at_period_end ? periodEnd : null);
  const cancelling = endsAt !== null && isLiveStatus(status);
  const end = cancelling ? endsAt : periodEnd;
  return {
    plan: planForStatus(status),
    subscriptionStatus: status,
    subscriptionId: sub.id,
    cancelAtPeriodEnd: cancelling,
    currentPeriodEnd: end === null ? null : new Date(end * 1000),
  };
}

/**
 * What a refresh stores over `stored`: the state for the customer's subscriptions, except that
 * one with no Pro in force at `now` leaves an operator's grant alone (undefined: store nothing).
 */
export function stateToStore(
  stored: PlanState,
  subscriptions: readonly SubscriptionSnapshot[],
  now: Date,
): BillingState | undefined {
  const state = billingStateFor(subscriptions);
  if (state && isGrantedPro(stored) && effectivePlan(state, now) !== 'pro') return undefined;
  return state;
}
