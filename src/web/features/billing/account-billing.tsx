import { CreditCard, Sparkles } from 'lucide-react';
import type { User } from '../../../shared/contract/auth.ts';
import type { SubscriptionInfo } from '../../../shared/contract/billing.ts';
import type { SubscriptionStatus } from '../../../shared/plans.ts';
import { Button } from '../../components/ui/button.tsx';
import { useSubscriptionInfo } from './api.ts';
import { useBillingActions } from '../../lib/billing-actions.tsx';

type PlanUser = Pick<User, 'plan' | 'subscriptionStatus'>;

function isPro(user: PlanUser): boolean {
  return user.plan.toLowerCase() === 'pro';
}

/** Statuses under which Stripe still bills (src/server/accounts/effective-plan.ts). */
const LIVE: ReadonlySet<SubscriptionStatus> = new Set(['active', 'trialing', 'past_due']);

/**
 * A subscription cancelled at its period end, on an account already on the Free plan: the server
 * applies Free once the period is over (src/server/accounts/effective-plan.ts), while the status
 * Stripe last reported stays active (or trialing, past due) until its customer.subscription.deleted
 * arrives, which can be late. It will not renew.
 */
function cancelledAndFree(user: PlanUser, info: SubscriptionInfo): boolean {
  return !isPro(user) && info.cancelAtPeriodEnd && LIVE.has(user.subscriptionStatus);
}

/**
 * The status the plan card's badge shows: canceled for a subscription that is cancelledAndFree
 * (what Stripe will soon say), so a Free plan never reads Active; null (no badge) while the details
 * that tell are loading, when the user's status could be such a one.
 */
export function useShownSubscriptionStatus(user: PlanUser): SubscriptionStatus | null {
  const info = useSubscriptionInfo();
  if (isPro(user) || !LIVE.has(user.subscriptionStatus)) return user.subscriptionStatus;
  if (!info.data) return info.isError ? user.subscriptionStatus : null;
  return cancelledAndFree(user, info.data) ? 'canceled' : user.subscriptionStatus;
}

/**
 * The plan card's actions on /app/account (docs/spec.md §2): Upgrade to Pro (Checkout) for free users,
 * Manage Billing (the Stripe portal) for anyone with a billing account. On a server without
 * billing both explain that instead.
 */
export function AccountBillingActions({ user }: { user: PlanUser }) {
  const billing = useBillingActions('account');
  const info = useSubscriptionInfo();
  const pro = isPro(user);
  // Until the details load, a Pro user most likely has a billing account; a free user not.
  const hasAccount = info.data?.hasBillingAccount ?? pro;
  const showManage = billing.billingEnabled ? hasAccount : pro;
  return (
    <>
      {pro ? null : (
        <Button size="sm" onClick={billing.upgrade} busy={billing.busy === 'upgrade'}>
          <Sparkles aria-hidden="true" />
          Upgrade to Pro
        </Button>
      )}
      {showManage ? (
        <Button size="sm" variant="outline" onClick={billing.manageBilling} busy={billing.busy === 'billing'}>
          <CreditCard aria-hidden="true" />
          Manage Billing
        </Button>
      ) : null}
      {billing.dialog}
    </>
  );
}

/** What the account page and /plan say for Pro without a billing account. */
export const GRANTED_PLAN_NOTE =
  'Your Pro plan was granted by an administrator of this server; there is nothing to bill.';

function formatDay(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? ''
    : new Intl.DateTimeFormat(undefined, { dateStyle: 'long' }).format(date);
}

/** One line about the subscription: renewal, the end of a cancelled plan, or an operator's grant. */
export function SubscriptionDetails({ user }: { user: PlanUser }) {
  const info = useSubscriptionInfo();
  const data = info.data;
  if (!data) return null;
  const end = data.currentPeriodEnd ? formatDay(data.currentPeriodEnd) : '';
  let text: string | null = null;
  if (cancelledAndFree(user, data) && end) {
    // The server's clock ended Pro; this one only picks the tense (they may differ by a little).
    text =
      new Date(data.currentPeriodEnd!).getTime() <= Date.now()
        ? `Your Pro subscription ended on ${end}. You are not charged again.`
        : `Your Pro subscription is cancelled and ends on ${end}. You are not charged again.`;
  } else if (isPro(user) && data.cancelAtPeriodEnd && end) {
    text = `Your subscription is cancelled: you keep Pro until ${end}, then the Free plan applies. You are not charged again.`;
  } else if (user.subscriptionStatus === 'trialing' && end) {
    text = `Your trial ends on ${end}.`;
  } else if (user.subscriptionStatus === 'active' && end) {
    text = `Renews on ${end}.`;
  } else if (isPro(user) && !data.hasBillingAccount) {
    text = GRANTED_PLAN_NOTE;
  }
  if (!text) return null;
  return (
    <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="subscription-details">
      {text}
    </p>
  );
}
