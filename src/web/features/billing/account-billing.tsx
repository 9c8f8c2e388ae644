import { CreditCard, Sparkles } from 'lucide-react';
import type { User } from '../../../shared/contract/auth.ts';
import { Button } from '../../components/ui/button.tsx';
import { useSubscriptionInfo } from './api.ts';
import { useBillingActions } from '../../lib/billing-actions.tsx';

type PlanUser = Pick<User, 'plan' | 'subscriptionStatus'>;

function isPro(user: PlanUser): boolean {
  return user.plan.toLowerCase() === 'pro';
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
  if (isPro(user) && data.cancelAtPeriodEnd && end) {
    text = `Your subscription is cancelled: you keep Pro until ${end}, then the Free plan applies. You are not charged again.`;
  } else if (user.subscriptionStatus === 'trialing' && end) {
    text = `Your trial ends on ${end}.`;
  } else if (user.subscriptionStatus === 'active' && end) {
    text = `Renews on ${end}.`;
  } else if (isPro(user) && !data.hasBillingAccount) {
    text = 'Your Pro plan was granted by an administrator of this server; there is nothing to bill.';
  }
  if (!text) return null;
  return (
    <p className="text-sm text-slate-600 dark:text-slate-400" data-testid="subscription-details">
      {text}
    </p>
  );
}
