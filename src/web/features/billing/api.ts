import { useQuery } from '@tanstack/react-query';
import type { SubscriptionInfo, SyncResponse } from '../../../shared/contract/billing.ts';
import { api } from '../../lib/api.ts';

/**
 * Billing calls of the account page (docs/spec.md §7): sync and the subscription details. Starting
 * Checkout and opening the billing portal are lib/billing-actions.tsx (every upgrade button).
 */

const SUBSCRIPTION_KEY = ['billing', 'subscription'] as const;

export function syncBilling(signal?: AbortSignal): Promise<SyncResponse> {
  return api<SyncResponse>('/api/billing/sync', { method: 'POST', signal });
}

/** The subscription details; `enabled: false` asks nothing (e.g. until they can matter). */
export function useSubscriptionInfo({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    queryKey: SUBSCRIPTION_KEY,
    enabled,
    queryFn: ({ signal }) => api<SubscriptionInfo>('/api/billing/subscription', { signal }),
  });
}
