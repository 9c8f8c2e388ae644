import { MailWarning } from 'lucide-react';
import { Link } from 'react-router';
import type { User } from '../../../shared/contract/auth.ts';
import { Badge } from '../../components/ui/badge.tsx';
import { Button } from '../../components/ui/button.tsx';
import { Card, CardContent } from '../../components/ui/card.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { AppPageHeader } from '../../components/layout/app-page-header.tsx';
import { UsageCard } from '../send/usage-card.tsx';
import { useResendVerification } from '../auth/use-resend-verification.ts';
import { PaymentReturn } from '../billing/payment-return.tsx';
import { useSettings } from './api.ts';
import { ChangeEmailCard } from './change-email-card.tsx';
import { ChangePasswordCard } from './change-password-card.tsx';
import { formatDate } from './format.ts';
import { LoadError } from './load-error.tsx';
import { LoginAlertsCard } from './login-alerts-card.tsx';
import { PlanCard } from './plan-card.tsx';
import { Section } from './section.tsx';

function UnverifiedWarning({ email }: { email: string }) {
  const resend = useResendVerification();
  return (
    <div
      role="status"
      data-testid="unverified-warning"
      className="flex flex-col gap-3 rounded-xl border border-amber-300 bg-amber-50 p-4 text-sm text-amber-950 sm:flex-row sm:items-center sm:justify-between dark:border-amber-500/40 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <div className="flex gap-3">
        <MailWarning aria-hidden="true" className="mt-0.5 size-5 shrink-0" />
        <div>
          <p className="font-semibold">Please verify your email address</p>
          <p>
            Check your inbox at <span className="font-medium break-all">{email}</span> for a verification link. You
            need to verify before you can send emails.
          </p>
        </div>
      </div>
      <Button size="sm" variant="outline" className="self-start sm:self-center" busy={resend.isPending} onClick={() => resend.mutate()}>
        Resend verification email
      </Button>
    </div>
  );
}

function AccountInfo({ user }: { user: User }) {
  return (
    <Section id="account-info" title="Account information">
      <dl className="divide-y divide-slate-200 text-sm dark:divide-slate-800">
        <div className="flex flex-wrap items-center justify-between gap-2 pb-3">
          <dt className="text-slate-600 dark:text-slate-400">Email</dt>
          <dd className="font-medium break-all text-slate-900 dark:text-white" data-testid="account-email">
            {user.email}
          </dd>
        </div>
        <div className="flex flex-wrap items-center justify-between gap-2 py-3">
          <dt className="text-slate-600 dark:text-slate-400">Email status</dt>
          <dd>
            {user.verified ? <Badge color="green">Verified</Badge> : <Badge color="yellow">Not verified</Badge>}
          </dd>
        </div>
        <div className="flex flex-wrap items-center justify-between gap-2 py-3">
          <dt className="text-slate-600 dark:text-slate-400">Member since</dt>
          <dd className="text-slate-900 dark:text-white">{formatDate(user.createdAt)}</dd>
        </div>
        <div className="flex flex-wrap items-center justify-between gap-2 pt-3">
          <dt className="text-slate-600 dark:text-slate-400">Usage</dt>
          <dd>
            <Link to="/app/profile" className="font-medium text-brand-600 hover:underline dark:text-brand-400">
              View profile and usage
            </Link>
          </dd>
        </div>
      </dl>
    </Section>
  );
}

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

/**
 * /app/account (spec §2): account info, plan and billing, change email, change password, login
 * alerts, and the unverified-email warning.
 */
export function AccountPage() {
  const settings = useSettings();
  return (
    <div className="mx-auto max-w-3xl">
      <AppPageHeader title="Account" description="Manage your sign-in details, plan and security." />
      {/* The return from Stripe Checkout (?payment=success, spec §4). */}
      <div className="mb-6 empty:hidden">
        <PaymentReturn />
      </div>
      {settings.isError ? (
        <LoadError
          message="Failed to load account settings"
          toastTitle="Failed to load settings"
          error={settings.error}
          retrying={settings.isFetching}
          onRetry={() => void settings.refetch()}
        />
      ) : settings.data ? (
        <div className="space-y-6">
          {settings.data.user.verified ? null : <UnverifiedWarning email={settings.data.user.email} />}
          <AccountInfo user={settings.data.user} />
          <PlanCard user={settings.data.user} />
          <UsageCard />
          <ChangeEmailCard currentEmail={settings.data.user.email} />
          <ChangePasswordCard hasPassword={settings.data.user.hasPassword} />
          <LoginAlertsCard enabled={settings.data.prefs.loginAlerts} />
        </div>
      ) : (
        <AccountSkeleton />
      )}
    </div>
  );
}
