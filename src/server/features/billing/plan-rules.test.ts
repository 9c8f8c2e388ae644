import { describe, expect, it } from 'vitest';
import { effectivePlan, operatorPlanState, planForStatus } from '../../accounts/effective-plan.ts';
import {
  billingStateFor,
  pickSubscription,
  stateToStore,
  statusFromStripe,
  type SubscriptionSnapshot,
} from './plan-rules.ts';

const sub = (over: Partial<SubscriptionSnapshot> = {}): SubscriptionSnapshot => ({
  id: 'sub_1',
  status: 'active',
  created: 100,
  cancel_at_period_end: false,
  cancel_at: null,
  itemPeriodEnds: [2_000_000_000],
  ...over,
});

describe('plan rules', () => {
  it('maps Stripe statuses to ours and to plans', () => {
    expect(['active', 'trialing', 'past_due'].map((s) => planForStatus(statusFromStripe(s)))).toEqual([
      'pro',
      'pro',
      'pro',
    ]);
    expect(
      ['canceled', 'unpaid', 'incomplete_expired', 'incomplete', 'paused'].map((s) =>
        planForStatus(statusFromStripe(s)),
      ),
    ).toEqual(['free', 'free', 'free', 'free', 'free']);
    expect(statusFromStripe('incomplete_expired')).toBe('none');
    expect(statusFromStripe('paused')).toBe('unpaid');
    expect(statusFromStripe('something_new')).toBe('none');
  });

  it('keeps Pro after cancelling at period end until that end, then free', () => {
    const end = new Date('2026-03-01T00:00:00Z');
    const state = {
      plan: 'pro' as const,
      subscriptionStatus: 'active' as const,
      cancelAtPeriodEnd: true,
      currentPeriodEnd: end,
    };
    expect(effectivePlan(state, new Date('2026-02-28T23:59:59Z'))).toBe('pro');
    expect(effectivePlan(state, end)).toBe('free');
    expect(effectivePlan({ ...state, cancelAtPeriodEnd: false }, new Date('2027-01-01'))).toBe('pro');
    // A stored free plan never becomes pro, and an operator's grant after a cancellation holds.
    expect(effectivePlan({ ...state, plan: 'free' }, new Date('2026-01-01'))).toBe('free');
    expect(effectivePlan({ ...state, subscriptionStatus: 'canceled' }, new Date('2027-01-01'))).toBe('pro');
  });

  it('picks the subscription giving the most access, then the newest', () => {
    const old = sub({ id: 'old', status: 'canceled', created: 1 });
    const live = sub({ id: 'live', status: 'active', created: 2 });
    const newer = sub({ id: 'newer', status: 'incomplete', created: 3 });
    expect(pickSubscription([old, live, newer])?.id).toBe('live');
    expect(
      pickSubscription([
        sub({ id: 'a', status: 'canceled', created: 1 }),
        sub({ id: 'b', status: 'canceled', created: 5 }),
      ])?.id,
    ).toBe('b');
    expect(pickSubscription([])).toBeUndefined();
  });

  it('derives the stored state, including cancel_at and leaving no-subscription customers alone', () => {
    expect(billingStateFor([])).toBeUndefined();
    expect(billingStateFor([sub({ status: 'incomplete' })])).toBeUndefined();
    expect(billingStateFor([sub()])).toEqual({
      plan: 'pro',
      subscriptionStatus: 'active',
      subscriptionId: 'sub_1',
      cancelAtPeriodEnd: false,
      currentPeriodEnd: new Date(2_000_000_000 * 1000),
    });
    expect(billingStateFor([sub({ cancel_at: 1_900_000_000 })])).toMatchObject({
      cancelAtPeriodEnd: true,
      currentPeriodEnd: new Date(1_900_000_000 * 1000),
    });
    expect(billingStateFor([sub({ status: 'canceled', cancel_at_period_end: true })])).toMatchObject({
      plan: 'free',
      subscriptionStatus: 'canceled',
      cancelAtPeriodEnd: false,
    });
  });

  it("an operator's Pro outlasts a cancelled subscription, and stands until Stripe has Pro in force", () => {
    const end = new Date('2026-03-01T00:00:00Z');
    const after = new Date('2026-03-02T00:00:00Z');
    const cancelled = {
      plan: 'pro' as const,
      subscriptionStatus: 'active' as const,
      cancelAtPeriodEnd: true,
      currentPeriodEnd: end,
    };
    const granted = operatorPlanState(cancelled, 'pro');
    expect(granted).toEqual({ ...cancelled, subscriptionStatus: 'canceled', cancelAtPeriodEnd: false });
    expect(effectivePlan(granted, after)).toBe('pro');
    // Nothing else is touched: a plain grant, or a free plan.
    const paying = { ...cancelled, cancelAtPeriodEnd: false };
    expect(operatorPlanState(paying, 'pro')).toEqual(paying);
    expect(operatorPlanState(cancelled, 'free')).toEqual({ ...cancelled, plan: 'free' });

    const endS = end.getTime() / 1000;
    const over = [sub({ cancel_at_period_end: true, itemPeriodEnds: [endS] })];
    expect(stateToStore(granted, over, after)).toBeUndefined();
    expect(stateToStore(granted, [sub({ status: 'canceled' })], after)).toBeUndefined();
    // A subscription in force again (renewed in the portal) is stored; a paying user's state always is.
    expect(stateToStore(granted, [sub()], after)).toMatchObject({
      plan: 'pro',
      subscriptionStatus: 'active',
    });
    expect(stateToStore(paying, over, after)).toMatchObject({ plan: 'pro', cancelAtPeriodEnd: true });
    expect(stateToStore(paying, [sub({ status: 'canceled' })], after)).toMatchObject({ plan: 'free' });
  });
});
