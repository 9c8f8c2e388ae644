import type { User } from '../../shared/contract/auth.ts';
import { AppPageHeader } from '../components/layout/app-page-header.tsx';
import { Card, CardContent } from '../components/ui/card.tsx';
import { Skeleton } from '../components/ui/skeleton.tsx';
import { UsageCard } from '../components/usage/usage-card.tsx';
import { AccountInfo } from '../features/account/account-info.tsx';
import { ApiKeysCard } from '../features/api-keys/api-keys-card.tsx';
import { useSettings } from '../features/account/api.ts';
import { ChangeEmailCard } from '../features/account/change-email-card.tsx';
import { ChangePasswordCard } from '../features/account/change-password-card.tsx';
import { LoadError, useLoadFailure } from '../features/account/load-error.tsx';
import { LoginAlertsCard } from '../features/account/login-alerts-card.tsx';
import { ReviewNotificationsCard } from '../features/account/review-notifications-card.tsx';
import { TargetClientsCard } from '../features/account/target-clients-card.tsx';
import { PlanCard } from '../features/account/plan-card.tsx';
import { SharedLinksCard } from '../features/account/shared-links-card.tsx';
import { UnverifiedWarning } from '../features/account/unverified-warning.tsx';
import {
  AccountBillingActions,
  SubscriptionDetails,
  useShownSubscriptionStatus,
} from '../features/billing/account-billing.tsx';
import { useSignOut } from '../features/auth/session-actions.ts';
import { PaymentReturn } from '../features/billing/payment-return.tsx';

function AccountSkeleton() {
  return (
    <div className="space-y-6" aria-hidden="true">
      {[0, 1, 2].map((i) => (
        <Card key={i}>
          <CardContent className="space-y-3">
            <Skeleton className="block h-6 w-48" />
            <Skeleton className="block h-4 w-full" />
            <Skeleton className="block h-4 w-2/3" />
          </CardContent>
        </Card>
      ))}
    </div>
  );
}

/** The account feature's plan card with the billing feature's actions, details and status. */
function PlanAndBilling({ user }: { user: User }) {
  const subscriptionStatus = useShownSubscriptionStatus(user);
  return (
    <PlanCard
      user={user}
      subscriptionStatus={subscriptionStatus}
      actions={<AccountBillingActions user={user} />}
      details={<SubscriptionDetails user={user} />}
    />
  );
}

/**
 * /app/account (docs/spec.md §2): account info, plan and billing, change email, change password, login
 * alerts, API keys, and the unverified-email warning. The account feature's cards, with the billing
 * feature's return from Checkout, plan actions and subscription details.
 */
export function AccountPage() {
  const settings = useSettings();
  const failure = useLoadFailure([settings]);
  const signOut = useSignOut();
  return (
    <div className="mx-auto max-w-3xl">
      <AppPageHeader title="Account" description="Manage your sign-in details, plan and security." />
      {/* The return from Stripe Checkout (?payment=success, docs/spec.md §4). */}
      <div className="mb-6 empty:hidden">
        <PaymentReturn />
      </div>
      {failure.failed ? (
        <LoadError
          message="Failed to load account settings"
          toastTitle="Failed to load settings"
          error={failure.error}
          retrying={failure.retrying}
          onRetry={failure.retry}
        />
      ) : settings.data ? (
        <div className="space-y-6">
          {settings.data.user.verified ? null : <UnverifiedWarning email={settings.data.user.email} />}
          <AccountInfo user={settings.data.user} />
          <PlanAndBilling user={settings.data.user} />
          <UsageCard />
          <SharedLinksCard plan={settings.data.user.plan} />
          <ChangeEmailCard
            currentEmail={settings.data.user.email}
            hasPassword={settings.data.user.hasPassword}
            onSignInAgain={() => void signOut('/signin')}
          />
          <ChangePasswordCard hasPassword={settings.data.user.hasPassword} />
          <LoginAlertsCard enabled={settings.data.prefs.loginAlerts} />
          <ReviewNotificationsCard />
          <TargetClientsCard />
          <ApiKeysCard verified={settings.data.user.verified} />
        </div>
      ) : (
        <AccountSkeleton />
      )}
    </div>
  );
}
