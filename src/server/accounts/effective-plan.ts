import type { Plan, SubscriptionStatus } from '../../shared/plans.ts';

/**
 * Which plan an account has. Pure functions, no I/O: billing stores the plan Stripe reports,
 * and `effectivePlan` applies the one rule that depends on the time of reading (a cancelled
 * subscription's paid period running out), for every request through the session lookup.
 */

/** Statuses under which the subscription is still paid for (past_due: Stripe is still retrying). */
const LIVE: ReadonlySet<SubscriptionStatus> = new Set(['active', 'trialing', 'past_due']);

export function isLiveStatus(status: SubscriptionStatus): boolean {
  return LIVE.has(status);
}

/** active or trialing → pro; past_due → pro (with a warning) until Stripe gives up; else free. */
export function planForStatus(status: SubscriptionStatus): Plan {
  return isLiveStatus(status) ? 'pro' : 'free';
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
    isLiveStatus(state.subscriptionStatus) &&
    state.currentPeriodEnd.getTime() <= now.getTime()
  ) {
    return 'free';
  }
  return state.plan;
}
