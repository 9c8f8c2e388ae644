import type { Plan, SubscriptionStatus } from '../../../shared/plans.ts';

/**
 * How a Stripe subscription maps to our plan (spec §1, issue 7). Pure functions, no I/O: the
 * webhook and sync paths write the result to the user's row, and `effectivePlan` applies the one
 * rule that depends on the time of reading (a cancelled subscription's paid period running out).
 */

/** Every subscription status Stripe reports. */
export type StripeSubscriptionStatus =
  | 'incomplete'
  | 'incomplete_expired'
  | 'trialing'
  | 'active'
  | 'past_due'
  | 'canceled'
  | 'unpaid'
  | 'paused';

/** Statuses under which the subscription is still paid for (past_due: Stripe is still retrying). */
const LIVE: ReadonlySet<SubscriptionStatus> = new Set(['active', 'trialing', 'past_due']);

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

/** active or trialing → pro; past_due → pro (with a warning) until Stripe gives up; else free. */
export function planForStatus(status: SubscriptionStatus): Plan {
  return LIVE.has(status) ? 'pro' : 'free';
}

export interface PlanState {
  plan: Plan;
  subscriptionStatus: SubscriptionStatus;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: Date | null;
}

/**
 * The plan in force at `now`. The stored plan is authoritative (billing or an operator's
 * set-plan wrote it) except for one case: a live subscription cancelled at the period end keeps
 * Pro only until that end, even if Stripe's final "deleted" event is late or never arrives.
 */
export function effectivePlan(state: PlanState, now: Date): Plan {
  if (
    state.plan === 'pro' &&
    state.cancelAtPeriodEnd &&
    state.currentPeriodEnd !== null &&
    LIVE.has(state.subscriptionStatus) &&
    state.currentPeriodEnd.getTime() <= now.getTime()
  ) {
    return 'free';
  }
  return state.plan;
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
  const cancelling = endsAt !== null && LIVE.has(status);
  const end = cancelling ? endsAt : periodEnd;
  return {
    plan: planForStatus(status),
    subscriptionStatus: status,
    subscriptionId: sub.id,
    cancelAtPeriodEnd: cancelling,
    currentPeriodEnd: end === null ? null : new Date(end * 1000),
  };
}
