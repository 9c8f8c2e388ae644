import { CloudOff } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { Button } from '../components/ui/button.tsx';
import { Spinner } from '../components/ui/spinner.tsx';
import type { User } from '../../shared/contract/auth.ts';
import type { AuthLocationState } from '../features/auth/navigation.ts';
import { useSession } from '../lib/session.ts';

/**
 * Renders its children only for a signed-in user (docs/spec.md §2 app shell): a spinner while the session
 * is checked, /signin without a user. A visitor who was never signed in here comes back to the page
 * they asked for after signing in; a session that ends (sign-out, revoked) just goes to /signin.
 */
export function RequireSession({ children }: { children: (user: User) => ReactNode }) {
  const session = useSession();
  const location = useLocation();
  const [wasSignedIn, setWasSignedIn] = useState(false);
  if (session.status === 'authenticated' && !wasSignedIn) setWasSignedIn(true);

  if (session.status === 'authenticated') return children(session.user);
  if (session.status === 'anonymous') {
    const state: AuthLocationState | undefined = wasSignedIn
      ? undefined
      : { from: `${location.pathname}${location.search}${location.hash}` };
    return <Navigate to="/signin" replace state={state} />;
  }
  if (session.status === 'error') {
    return (
      <main id="main" className="flex min-h-dvh flex-col items-center justify-center gap-4 p-6 text-center">
        <span className="flex size-12 items-center justify-center rounded-full bg-slate-100 text-slate-600 dark:bg-slate-800 dark:text-slate-300">
          <CloudOff aria-hidden="true" className="size-6" />
        </span>
        <div role="alert" className="space-y-1">
          <h1 className="text-xl font-semibold">Can&apos;t Reach Proofmail</h1>
          <p className="max-w-sm text-sm text-slate-600 dark:text-slate-400">
            We could not check your session: {session.error.message}
          </p>
        </div>
        <Button onClick={session.retry}>Try Again</Button>
      </main>
    );
  }
  return (
    <main id="main" className="flex min-h-dvh items-center justify-center p-6">
      <Spinner className="size-8 text-brand-600 dark:text-brand-400" label="Loading your account" />
    </main>
  );
}
