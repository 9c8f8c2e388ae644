import { Link } from 'react-router';
import type { User } from '../../../shared/contract/auth.ts';
import { Badge } from '../../components/ui/badge.tsx';
import { EmailAddress } from '../../components/ui/email-address.tsx';
import { formatDate } from './format.ts';
import { Section } from './section.tsx';

/** Account information on /app/account: email, whether it is verified, member since, usage link. */
export function AccountInfo({ user }: { user: User }) {
  return (
    <Section id="account-info" title="Account Information">
      <dl className="divide-y divide-slate-200 text-sm dark:divide-slate-800">
        <div className="flex flex-wrap items-center justify-between gap-2 pb-3">
          <dt className="text-slate-600 dark:text-slate-400">Email</dt>
          <dd className="min-w-0 font-medium text-slate-900 dark:text-white" data-testid="account-email">
            <EmailAddress address={user.email} />
          </dd>
        </div>
        <div className="flex flex-wrap items-center justify-between gap-2 py-3">
          <dt className="text-slate-600 dark:text-slate-400">Email status</dt>
          <dd>
            {user.verified ? (
              <Badge color="green">Verified</Badge>
            ) : (
              <Badge color="yellow">Not verified</Badge>
            )}
          </dd>
        </div>
        <div className="flex flex-wrap items-center justify-between gap-2 py-3">
          <dt className="text-slate-600 dark:text-slate-400">Member since</dt>
          <dd className="text-slate-900 dark:text-white">{formatDate(user.createdAt)}</dd>
        </div>
        <div className="flex flex-wrap items-center justify-between gap-2 pt-3">
          <dt className="text-slate-600 dark:text-slate-400">Usage</dt>
          <dd>
            <Link
              to="/app/profile"
              className="font-medium text-brand-600 hover:underline dark:text-brand-400"
            >
              View Profile and Usage
            </Link>
          </dd>
        </div>
      </dl>
    </Section>
  );
}
