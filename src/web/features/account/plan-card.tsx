import type { ReactNode } from 'react';
import type { User } from '../../../shared/contract/auth.ts';
import type { SubscriptionStatus } from '../../../shared/plans.ts';
import { Badge } from '../../components/ui/badge.tsx';
import { usePublicConfig } from '../../lib/public-config.ts';
import { FormAlert } from '../../components/ui/form-alert.tsx';
import { planLabel, SUBSCRIPTION_BADGE } from './format.ts';
import { Section } from './section.tsx';

/**
 * Plan and billing (docs/spec.md §2 /app/account): the plan, the subscription status badge and the
 * past-due warning. The page passes in the billing feature's actions (Upgrade to Pro, Manage
 * Billing), its line about the subscription (renewal, end of a cancelled plan) and the status to
 * show, which is billing's reading of the user's (a cancelled subscription whose period is over
 * shows canceled before Stripe says so; null: not known yet, no badge).
 */
export function PlanCard({
  user,
  subscriptionStatus,
  actions,
  details,
}: {
  user: Pick<User, 'plan'>;
  subscriptionStatus: SubscriptionStatus | null;
  actions: ReactNode;
  details: ReactNode;
}) {
  const config = usePublicConfig();
  const isPro = user.plan.toLowerCase() === 'pro';
  const status =
    subscriptionStatus === null || subscriptionStatus === 'none'
      ? null
      : SUBSCRIPTION_BADGE[subscriptionStatus];
  const freeLimit = config.data?.freeMonthlyLimit;
  return (
    <Section id="plan" title="Plan and Billing">
      <div className="space-y-4">
        <div className="flex flex-wrap items-center justify-between gap-4">
          <div className="space-y-1">
            <div className="flex flex-wrap items-center gap-2">
              <span
                className="text-base font-semibold text-slate-900 dark:text-white"
                data-testid="account-plan"
              >
                {planLabel(user.plan)} plan
              </span>
              {status ? (
                <Badge color={status.color} data-testid="subscription-status">
                  {status.label}
                </Badge>
              ) : null}
            </div>
            <p className="text-sm text-slate-600 dark:text-slate-400">
              {isPro
                ? 'Unlimited sends (fair use), history, public share links and the priority queue.'
                : freeLimit !== undefined
                  ? `${freeLimit} email sends per month. Upgrade for unlimited sends, history and share links.`
                  : 'Upgrade for unlimited sends, history and share links.'}
            </p>
          </div>
          <div className="flex flex-wrap gap-2" data-slot="billing-actions">
            {actions}
          </div>
        </div>
        {details}
        {subscriptionStatus === 'past_due' ? (
          <FormAlert tone="warning">
            <span className="block font-medium">Your last payment did not go through.</span>
            Update your payment method to keep your Pro features.
          </FormAlert>
        ) : null}
      </div>
    </Section>
  );
}
