import { useCallback } from 'react';
import { Outlet } from 'react-router';
import { PageContainer } from '../components/layout/page-container.tsx';
import { SiteFooter } from '../components/layout/site-footer.tsx';
import { toast } from '../components/ui/toast.tsx';
import { useSignOutOnUnauthorized } from '../features/auth/session-actions.ts';
import { MailCatcherBanner } from '../features/dev-mailbox/mail-catcher-banner.tsx';
import { AppHeader } from './app-header.tsx';
import { RequireSession } from './require-session.tsx';

/**
 * The signed-in frame of everything under /app (docs/spec.md §2): spinner while the session is checked,
 * /signin without a user, header with tabs and menus, content at most 1120px wide, footer.
 */
export function AppShell() {
  const onRevoked = useCallback(() => toast.info('Your session has ended', 'Please sign in again.'), []);
  useSignOutOnUnauthorized(onRevoked);
  return (
    <RequireSession>
      {(user) => (
        <div className="flex min-h-dvh flex-col bg-slate-50/60 dark:bg-slate-950">
          <a
            href="#main"
            className="sr-only rounded-md bg-white px-4 py-2 text-sm font-medium text-slate-900 shadow-lg focus:not-sr-only focus:fixed focus:top-3 focus:left-3 focus:z-50 focus:outline-2 focus:outline-brand-600 dark:bg-slate-900 dark:text-white"
          >
            Skip to Content
          </a>
          <AppHeader user={user} />
          <MailCatcherBanner />
          <main id="main" tabIndex={-1} className="flex-1 outline-none">
            <PageContainer className="py-8 sm:py-10">
              <Outlet />
            </PageContainer>
          </main>
          <SiteFooter />
        </div>
      )}
    </RequireSession>
  );
}
