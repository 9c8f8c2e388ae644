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

/** A live subscription cancelled at its period end: it ends then, whatever the stored plan says. */
export function endsAtPeriodEnd(state: PlanState): state is PlanState & { currentPeriodEnd: Date } {
  return state.cancelAtPeriodEnd && state.currentPeriodEnd !== null && isLiveStatus(state.subscriptionStatus);
}

/**
 * The plan in force at `now`. The stored plan is authoritative (billing or an operator's
 * set-plan wrote it) except for one case: a live subscription cancelled at the period end keeps
 * Pro only until that end, even if Stripe's final "deleted" event is late or never arrives.
 */
export function effectivePlan(state: PlanState, now: Date): Plan {
  if (state.plan === 'pro' && endsAtPeriodEnd(state) && state.currentPeriodEnd.getTime() <= now.getTime()) {
    return 'free';
  }
  return state.plan;
}

/**
 * Pro granted by an operator (`npm run admin -- set-plan EMAIL pro`): Pro that no live
 * subscription explains, since billing stores Pro only under a live status. A refresh from Stripe
 * that finds no Pro in force leaves it alone (docs/decisions/0017-billing-off.md).
 */
export function isGrantedPro(state: PlanState): boolean {
  return state.plan === 'pro' && !isLiveStatus(state.subscriptionStatus);
}

/**
 * What an operator's set-plan writes over `state`. Pro over a subscription cancelled at its period
 * end also records that subscription as over (canceled, what Stripe reports once the period ends):
 * the grant then stands on its own instead of ending with it (docs/decisions/0017-billing-off.md).
 */
export function operatorPlanState(state: PlanState, plan: Plan): PlanState {
  if (plan === 'pro' && endsAtPeriodEnd(state))
    return { ...state, plan, subscriptionStatus: 'canceled', cancelAtPeriodEnd: false };
  return { ...state, plan };
}
