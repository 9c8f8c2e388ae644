import type { BadgeColor } from '../../components/ui/badge.tsx';
import type { SubscriptionStatus } from '../../../shared/plans.ts';

/** "November 21, 2025" in the reader's locale; an unreadable date shows as a dash. */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '—';
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'long' }).format(date);
}

/** Subscription status badge (docs/spec.md §4): active green, trialing blue, past_due red, canceled gray, unpaid red. */
export const SUBSCRIPTION_BADGE: Record<
  Exclude<SubscriptionStatus, 'none'>,
  { label: string; color: BadgeColor }
> = {
  active: { label: 'Active', color: 'green' },
  trialing: { label: 'Trialing', color: 'blue' },
  past_due: { label: 'Past due', color: 'red' },
  // The interface spells it "cancelled" everywhere else ("Email Change Cancelled", "is cancelled").
  canceled: { label: 'Cancelled', color: 'gray' },
  unpaid: { label: 'Unpaid', color: 'red' },
};

export function planLabel(plan: string): string {
  return plan.toLowerCase() === 'pro' ? 'Pro' : 'Free';
}
