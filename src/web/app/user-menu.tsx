import { CircleUserRound, CreditCard, LogOut, Settings } from 'lucide-react';
import { useNavigate } from 'react-router';
import type { User } from '../../shared/contract/auth.ts';
import { Badge } from '../components/ui/badge.tsx';
import {
  DropdownMenu,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
} from '../components/ui/dropdown-menu.tsx';
import { toast } from '../components/ui/toast.tsx';
import { useSignOut } from '../features/auth/session-actions.ts';

const onSignOutError = (err: Error) => toast.error('Sign out failed', err.message);

/** The avatar menu (docs/spec.md §2): Account, Plan, Sign Out (then /signin), and Profile first. */
export function UserMenu({ user }: { user: User }) {
  const navigate = useNavigate();
  const signOut = useSignOut({ onError: onSignOutError });
  const initial = (user.email.trim()[0] ?? '?').toUpperCase();
  return (
    <DropdownMenu
      label="Account menu"
      triggerVariant="ghost"
      triggerSize="icon"
      triggerClassName="rounded-full"
      trigger={
        <span
          aria-hidden="true"
          className="flex size-8 items-center justify-center rounded-full bg-brand-600 text-sm font-semibold text-white dark:bg-brand-500"
        >
          {initial}
        </span>
      }
    >
      <DropdownMenuLabel className="space-y-1 py-2.5">
        <span
          className="block truncate text-sm font-medium text-slate-900 dark:text-white"
          title={user.email}
        >
          {user.email}
        </span>
        <Badge color={user.plan === 'pro' ? 'brand' : 'gray'}>
          {user.plan === 'pro' ? 'Pro plan' : 'Free plan'}
        </Badge>
      </DropdownMenuLabel>
      <DropdownMenuSeparator />
      <DropdownMenuItem icon={<CircleUserRound />} onSelect={() => void navigate('/app/profile')}>
        Profile
      </DropdownMenuItem>
      <DropdownMenuItem icon={<Settings />} onSelect={() => void navigate('/app/account')}>
        Account
      </DropdownMenuItem>
      <DropdownMenuItem icon={<CreditCard />} onSelect={() => void navigate('/plan')}>
        Plan
      </DropdownMenuItem>
      <DropdownMenuSeparator />
      <DropdownMenuItem icon={<LogOut />} onSelect={() => void signOut()}>
        Sign Out
      </DropdownMenuItem>
    </DropdownMenu>
  );
}
