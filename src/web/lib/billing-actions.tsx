import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import type { RedirectUrlResponse } from '../../shared/contract/billing.ts';
import { PRO_PRICE_ID } from '../../shared/plans.ts';
import { BillingDisabledDialog } from '../components/billing/billing-disabled-dialog.tsx';
import { toast } from '../components/ui/toast.tsx';
import { ApiError, api, errorMessage } from './api.ts';
import { usePublicConfig } from './public-config.ts';
import { isUserData } from './query-keys.ts';

/**
 * The actions that leave the app for Stripe (docs/spec.md §7): Checkout to upgrade, the billing portal to
 * manage a subscription. Every Upgrade to Pro button in the app starts Checkout through here.
 */

function createCheckoutSession(): Promise<RedirectUrlResponse> {
  return api<RedirectUrlResponse>('/api/billing/create-checkout', {
    method: 'POST',
    body: { price: PRO_PRICE_ID },
  });
}

function createPortalSession(): Promise<RedirectUrlResponse> {
  return api<RedirectUrlResponse>('/api/billing/create-portal', { method: 'POST' });
}

/** Leaves the app for a Stripe-hosted page (Checkout or the billing portal). */
function goTo(url: string): void {
  window.location.assign(url);
}

/**
 * Where a billing action was started; the failure toasts are those of docs/spec.md §8: the account page
 * says "create … session", everywhere else (plan page, upgrade buttons) "start/open …".
 */
export type BillingContext = 'account' | 'page';

const FAILURE_TITLES: Record<BillingContext, { upgrade: string; billing: string }> = {
  account: { upgrade: 'Failed to create checkout session', billing: 'Failed to create portal session' },
  page: { upgrade: 'Failed to start checkout', billing: 'Failed to open billing portal' },
};

export type BillingAction = 'upgrade' | 'billing';

export interface BillingActions {
  /** Starts Stripe Checkout for Pro (create-checkout, then the browser goes to its URL). */
  upgrade: () => void;
  /** Opens the Stripe billing portal (create-portal, then the browser goes to its URL). */
  manageBilling: () => void;
  /** The action in progress (its button shows a spinner until the browser has left). */
  busy: BillingAction | null;
  /** False when the server has no Stripe: the actions explain that instead of failing. */
  billingEnabled: boolean;
  /** Render this once next to the buttons (the billing-off explanation). */
  dialog: ReactNode;
}

export function useBillingActions(context: BillingContext): BillingActions {
  const config = usePublicConfig();
  const queryClient = useQueryClient();
  const [busy, setBusy] = useState<BillingAction | null>(null);
  const busyRef = useRef<BillingAction | null>(null);
  const [explainOpen, setExplainOpen] = useState(false);
  const billingEnabled = config.data?.billingEnabled !== false;

  // Coming back from Stripe with the Back button can restore this page from the back/forward
  // cache with the spinner still on; start fresh instead.
  useEffect(() => {
    const onPageShow = (e: PageTransitionEvent) => {
      if (e.persisted) {
        busyRef.current = null;
        setBusy(null);
      }
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, []);

  const run = useCallback(
    async (action: BillingAction, create: () => Promise<RedirectUrlResponse>) => {
      if (busyRef.current) return;
      if (!billingEnabled) {
        setExplainOpen(true);
        return;
      }
      busyRef.current = action;
      setBusy(action);
      try {
        const { url } = await create();
        goTo(url); // stay busy: the page is going away
      } catch (err) {
        busyRef.current = null;
        setBusy(null);
        if (err instanceof ApiError && err.code === 'billing_disabled') setExplainOpen(true);
        else toast.error(FAILURE_TITLES[context][action], errorMessage(err));
        // Pro already (paid in another tab, its webhook not in yet: the server has stored it now):
        // every view of the account reloads, as after the return from a payment (payment-return.tsx).
        if (err instanceof ApiError && err.code === 'already_pro')
          void queryClient.invalidateQueries({ predicate: isUserData });
      }
    },
    [billingEnabled, context, queryClient],
  );

  return {
    upgrade: () => void run('upgrade', createCheckoutSession),
    manageBilling: () => void run('billing', createPortalSession),
    busy,
    billingEnabled,
    dialog: <BillingDisabledDialog open={explainOpen} onOpenChange={setExplainOpen} />,
  };
}
