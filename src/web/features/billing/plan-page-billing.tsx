import type { ReactNode } from 'react';
import { BILLING_MESSAGES } from '../../../shared/contract/billing.ts';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { useSession } from '../../lib/session.ts';
import { useBillingActions, type BillingAction } from '../../lib/billing-actions.tsx';
import { GRANTED_PLAN_NOTE } from './account-billing.tsx';
import { useSubscriptionInfo } from './api.ts';

export interface PlanPageBilling {
  /** The signed-in user's plan; undefined for anonymous visitors (Get Started). */
  plan: 'free' | 'pro' | undefined;
  /** For Pro granted by an administrator (no billing account): said in place of Manage Billing. */
  proNote: string | undefined;
  onUpgrade: () => void;
  onManageBilling: () => void;
  busy: BillingAction | null;
  notice: ReactNode;
  /** This server sells no plans (no Stripe): the FAQ says how a plan changes here. */
  billingOff: boolean;
  /** Render once on the page (the billing-off explanation). */
  dialog: ReactNode;
}

/**
 * What /plan needs from the session and billing (docs/spec.md §2): Current Plan for free users with
 * Upgrade to Pro starting Checkout, Manage Billing for Pro users (or, for a plan an administrator
 * granted, a note saying so), Get Started for visitors.
 */
export function usePlanPageBilling(): PlanPageBilling {
  const session = useSession();
  const billing = useBillingActions('page');
  const plan = session.user ? (session.user.plan.toLowerCase() === 'pro' ? 'pro' : 'free') : undefined;
  // As the account page decides (account-billing.tsx): with billing on, Manage Billing needs a
  // billing account, and Pro without one was granted by an administrator. Until the details
  // load, a Pro user most likely has one.
  const info = useSubscriptionInfo({ enabled: plan === 'pro' && billing.billingEnabled });
  const granted = plan === 'pro' && billing.billingEnabled && info.data?.hasBillingAccount === false;
  const notice =
    session.user && !billing.billingEnabled ? (
      // No operator instructions in front of end users (docs/decisions/0057-billing-off-says-so.md).
      <FormAlert tone="info" id="plan-billing-off">
        <span className="font-medium">{BILLING_MESSAGES.disabled}.</span> Nothing can be bought or charged
        here; if you need a different plan, ask whoever runs this server.
      </FormAlert>
    ) : null;
  return {
    plan,
    proNote: granted ? GRANTED_PLAN_NOTE : undefined,
    onUpgrade: billing.upgrade,
    onManageBilling: billing.manageBilling,
    busy: billing.busy,
    notice,
    billingOff: !billing.billingEnabled,
    dialog: billing.dialog,
  };
}
