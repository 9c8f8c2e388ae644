import { CalendarDays, Settings } from 'lucide-react';
import { Link } from 'react-router';
import { Badge } from '../../components/ui/badge.tsx';
import { buttonClasses } from '../../components/ui/button.tsx';
import { Card, CardContent } from '../../components/ui/card.tsx';
import { EmailAddress } from '../../components/ui/email-address.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { AppPageHeader } from '../../components/layout/app-page-header.tsx';
import { UsageCard } from '../../components/usage/usage-card.tsx';
import { useUsage } from '../../lib/usage.ts';
import { useProfile } from './api.ts';
import { formatDate, planLabel } from './format.ts';
import { LoadError, useLoadFailure } from './load-error.tsx';

/**
 * /app/profile (docs/spec.md §2): email, plan badge, member-since date, monthly usage and total emails sent.
 */
export function ProfilePage() {
  const profile = useProfile();
  // The profile's data is the user and their usage (docs/spec.md §7 GET /api/user/usage): either
  // failing is the spec's "Failed to load profile" (§8), and Try Again asks for what failed.
  const usage = useUsage();
  const failure = useLoadFailure([profile, usage]);
  return (
    <div className="mx-auto max-w-3xl">
      <AppPageHeader
        title="Profile"
        actions={
          <Link to="/app/account" className={buttonClasses({ variant: 'outline', size: 'sm' })}>
            <Settings aria-hidden="true" />
            Account Settings
          </Link>
        }
      />
      {failure.failed ? (
        <LoadError
          message="Failed to load profile data"
          toastTitle="Failed to load profile"
          error={failure.error}
          retrying={failure.retrying}
          onRetry={failure.retry}
        />
      ) : (
        <div className="space-y-6">
          <Card>
            <CardContent className="flex flex-col gap-5 sm:flex-row sm:items-center">
              {profile.data ? (
                <>
                  <span
                    aria-hidden="true"
                    className="flex size-14 shrink-0 items-center justify-center rounded-full bg-brand-600 text-xl font-semibold text-white dark:bg-brand-500"
                  >
                    {(profile.data.email[0] ?? '?').toUpperCase()}
                  </span>
                  <dl className="min-w-0 flex-1 space-y-2">
                    <div>
                      <dt className="sr-only">Email</dt>
                      <dd
                        className="text-lg font-semibold text-slate-900 dark:text-white"
                        data-testid="profile-email"
                      >
                        <EmailAddress address={profile.data.email} />
                      </dd>
                    </div>
                    <div className="flex flex-wrap items-center gap-x-4 gap-y-2 text-sm text-slate-600 dark:text-slate-400">
                      <div className="flex items-center gap-2">
                        <dt className="sr-only">Plan</dt>
                        <dd>
                          <Badge
                            color={profile.data.plan === 'pro' ? 'brand' : 'gray'}
                            data-testid="profile-plan"
                          >
                            {planLabel(profile.data.plan)} plan
                          </Badge>
                        </dd>
                      </div>
                      <div className="flex items-center gap-1.5">
                        <CalendarDays aria-hidden="true" className="size-4" />
                        <dt>Member since</dt>
                        <dd data-testid="profile-member-since">{formatDate(profile.data.createdAt)}</dd>
                      </div>
                    </div>
                  </dl>
                </>
              ) : (
                <>
                  <Skeleton className="size-14 rounded-full" />
                  <div className="flex-1 space-y-2">
                    <Skeleton className="block h-6 w-64 max-w-full" />
                    <Skeleton className="block h-4 w-48" />
                  </div>
                </>
              )}
            </CardContent>
          </Card>

          <UsageCard />
        </div>
      )}
    </div>
  );
}
