import { useQueryClient } from '@tanstack/react-query';
import { useEffect } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { Spinner } from '../../components/ui/spinner.tsx';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { exchangeTicket } from './api.ts';
import { HOME_AFTER_SIGN_IN } from './navigation.ts';
import { establishSession } from './session-actions.ts';

// The ticket is single-use: one exchange per ticket, whatever React re-runs.
const exchanges = new Map<string, Promise<unknown>>();

/**
 * /auth/callback?token=&provider=&error= (docs/spec.md §4): the return point of social sign-in. The
 * one-time ticket is removed from the address bar at once, exchanged for a session token, and the
 * user goes to /app/send. Failures go back to /signin with `error`.
 */
export function AuthCallbackPage() {
  useDocumentTitle('Signing In');
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const error = params.get('error');
  const ticket = params.get('token');

  useEffect(() => {
    let active = true;
    const fail = (code: string) => {
      if (active) void navigate(`/signin?error=${encodeURIComponent(code)}`, { replace: true });
    };
    if (error) return fail(error);
    if (!ticket) return fail('no_token');
    // Keep the ticket out of history and of anything that reads the address later.
    window.history.replaceState(window.history.state, '', '/auth/callback');
    let signIn = exchanges.get(ticket);
    if (!signIn) {
      signIn = exchangeTicket(ticket).then(({ token }) => establishSession(queryClient, token));
      exchanges.set(ticket, signIn);
    }
    signIn.then(
      () => {
        if (active) void navigate(HOME_AFTER_SIGN_IN, { replace: true });
      },
      () => fail('auth_failed'),
    );
    return () => {
      active = false;
    };
  }, [error, ticket, navigate, queryClient]);

  return (
    <main
      id="main"
      className="flex min-h-dvh flex-col items-center justify-center gap-3 p-6 text-slate-600 dark:text-slate-400"
    >
      <Spinner className="size-8 text-brand-600 dark:text-brand-400" label={null} />
      <p role="status" className="text-sm">
        Signing you in…
      </p>
    </main>
  );
}
