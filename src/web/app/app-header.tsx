import { CircleHelp, Inbox, MessageSquare, Send } from 'lucide-react';
import { Link, NavLink, useLocation } from 'react-router';
import type { User } from '../../shared/contract/auth.ts';
import { Logo } from '../components/layout/logo.tsx';
import { PageContainer } from '../components/layout/page-container.tsx';
import { ThemeToggle } from '../components/layout/theme-toggle.tsx';
import { buttonClasses } from '../components/ui/button.tsx';
import { cx, focusRing } from '../components/ui/cx.ts';
import { usePublicConfig } from '../lib/public-config.ts';
import { UserMenu } from './user-menu.tsx';

const TABS = [
  { to: '/app/send', label: 'Send', icon: Send, match: ['/app/send'] },
  { to: '/app/history', label: 'Emails', icon: Inbox, match: ['/app/history', '/app/email/'] },
] as const;

function AppTabs({ className }: { className?: string }) {
  const { pathname } = useLocation();
  return (
    <nav aria-label="App" className={cx('flex items-stretch gap-1', className)}>
      {TABS.map(({ to, label, icon: Icon, match }) => {
        const active = match.some(
          (m) => pathname === m || pathname.startsWith(m.endsWith('/') ? m : `${m}/`),
        );
        return (
          <NavLink
            key={to}
            to={to}
            aria-current={active ? 'page' : undefined}
            className={cx(
              'relative inline-flex items-center gap-2 rounded-md px-3 text-sm font-medium transition-colors [&_svg]:size-4',
              'after:absolute after:inset-x-2 after:-bottom-px after:h-0.5 after:rounded-full',
              focusRing,
              active
                ? 'text-slate-900 after:bg-brand-600 dark:text-white dark:after:bg-brand-400'
                : 'text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white',
            )}
          >
            <Icon aria-hidden="true" />
            {label}
          </NavLink>
        );
      })}
    </nav>
  );
}

/**
 * The app header (docs/spec.md §2): tabs Send and Emails, a Feedback mailto button, a help button to
 * /contact, the theme toggle and the avatar menu. On phones the tabs get their own row.
 */
export function AppHeader({ user }: { user: User }) {
  const config = usePublicConfig();
  const supportEmail = config.data?.supportEmail;
  const feedbackHref = supportEmail
    ? `mailto:${supportEmail}?subject=${encodeURIComponent('Proofmail feedback')}`
    : undefined;
  return (
    <header className="sticky top-0 z-40 border-b border-slate-200/80 bg-white/90 backdrop-blur-md dark:border-slate-800/80 dark:bg-slate-950/90">
      <PageContainer className="flex h-16 items-stretch gap-2 sm:gap-6">
        <div className="flex items-center">
          <Logo to="/app/send" />
        </div>
        <AppTabs className="hidden sm:flex" />
        <div className="ml-auto flex items-center gap-1 sm:gap-2">
          {feedbackHref ? (
            <a
              href={feedbackHref}
              className={buttonClasses({ variant: 'ghost', size: 'sm', className: 'px-2 sm:px-3' })}
              title="Send feedback"
            >
              <MessageSquare aria-hidden="true" />
              <span className="max-sm:sr-only">Feedback</span>
            </a>
          ) : null}
          <Link
            to="/contact"
            aria-label="Help"
            title="Help"
            className={buttonClasses({ variant: 'ghost', size: 'icon' })}
          >
            <CircleHelp aria-hidden="true" />
          </Link>
          <ThemeToggle />
          <UserMenu user={user} />
        </div>
      </PageContainer>
      <div className="border-t border-slate-200/80 sm:hidden dark:border-slate-800/80">
        <PageContainer className="flex h-11 items-stretch">
          <AppTabs className="flex-1 [&>a]:flex-1 [&>a]:justify-center" />
        </PageContainer>
      </div>
    </header>
  );
}
