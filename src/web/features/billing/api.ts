import { useQuery } from '@tanstack/react-query';
import type { RedirectUrlResponse, SubscriptionInfo, SyncResponse } from '../../../shared/contract/billing.ts';
import { PRO_PRICE_ID } from '../../../shared/plans.ts';
import { api } from '../../lib/api.ts';

/** Billing calls (spec §7): Checkout, the billing portal, sync, and the subscription details. */

export const SUBSCRIPTION_KEY = ['billing', 'subscription'] as const;

export function createCheckoutSession(): Promise<RedirectUrlResponse> {
  return api<RedirectUrlResponse>('/api/billing/create-checkout', { method: 'POST', body: { price: PRO_PRICE_ID } });
}

export function createPortalSession(): Promise<RedirectUrlResponse> {
  return api<RedirectUrlResponse>('/api/billing/create-portal', { method: 'POST' });
}

export function syncBilling(signal?: AbortSignal): Promise<SyncResponse> {
  return api<SyncResponse>('/api/billing/sync', { method: 'POST', signal });
}

export function useSubscriptionInfo(enabled = true) {
  return useQuery({
    queryKey: SUBSCRIPTION_KEY,
    queryFn: ({ signal }) => api<SubscriptionInfo>('/api/billing/subscription', { signal }),
    enabled,
  });
}

/** Leaves the app for a Stripe-hosted page (Checkout or the billing portal). */
export function goTo(url: string): void {
  window.location.assign(url);
}
