import { X } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Logo } from '../../components/layout/logo.tsx';
import { ThemeToggle } from '../../components/layout/theme-toggle.tsx';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { buttonClasses } from '../../components/ui/button.tsx';
import { cx, focusRing } from '../../components/ui/cx.ts';

const footerLink = cx(
  'rounded-sm text-slate-500 transition-colors hover:text-slate-900 dark:text-slate-400 dark:hover:text-white',
  focusRing,
);

export interface AuthLayoutProps {
  /** Tab title and card heading. */
  title: string;
  description?: ReactNode;
  /** An icon above the heading (result pages: success, error, mail sent). */
  icon?: ReactNode;
  children?: ReactNode;
  /** Below the card body (links such as "Already have an account? Sign in"). */
  footer?: ReactNode;
  /** Shows the close button (back to the landing page) of the modal-style card. */
  closable?: boolean;
}

/**
 * The frame of every sign-in related page: a modal-style card centred on a quiet backdrop, the
 * brand and theme toggle above it, the legal links below.
 */
export function AuthLayout({ title, description, icon, children, footer, closable = true }: AuthLayoutProps) {
  useDocumentTitle(title);
  return (
    <div className="relative isolate flex min-h-dvh flex-col bg-slate-50 dark:bg-slate-950">
      <div
        aria-hidden="true"
        className="pointer-events-none absolute inset-x-0 top-0 -z-10 h-80 bg-gradient-to-b from-brand-100/70 to-transparent dark:from-brand-950/50"
      />
      <header className="flex items-center justify-between px-4 py-4 sm:px-6">
        <Logo />
        <ThemeToggle />
      </header>
      <main
        id="main"
        className="flex flex-1 items-start justify-center px-4 pt-4 pb-10 sm:items-center sm:pt-0"
      >
        <div
          role="group"
          aria-labelledby="auth-title"
          className="relative w-full max-w-md rounded-2xl border border-slate-200 bg-white p-6 shadow-xl shadow-slate-900/5 sm:p-8 dark:border-slate-800 dark:bg-slate-900 dark:shadow-black/30"
        >
          {closable ? (
            <Link
              to="/"
              aria-label="Close"
              title="Close"
              className={buttonClasses({
                variant: 'ghost',
                size: 'icon-sm',
                className: 'absolute top-3 right-3',
              })}
            >
              <X aria-hidden="true" />
            </Link>
          ) : null}
          <div className={cx('text-center', closable && 'px-6')}>
            {icon ? <div className="mb-4 flex justify-center">{icon}</div> : null}
            <h1
              id="auth-title"
              className="text-2xl font-semibold tracking-tight text-slate-900 dark:text-white"
            >
              {title}
            </h1>
            {description ? (
              <div className="mt-2 text-sm leading-6 text-slate-600 dark:text-slate-400">{description}</div>
            ) : null}
          </div>
          {children ? <div className="mt-6">{children}</div> : null}
          {footer ? (
            <div className="mt-6 border-t border-slate-200 pt-5 text-center text-sm text-slate-600 dark:border-slate-800 dark:text-slate-400">
              {footer}
            </div>
          ) : null}
        </div>
      </main>
      <footer className="flex flex-wrap items-center justify-center gap-x-5 gap-y-2 px-4 pb-6 text-sm">
        <Link to="/terms" className={footerLink}>
          Terms of Service
        </Link>
        <Link to="/privacy" className={footerLink}>
          Privacy Policy
        </Link>
        <Link to="/contact" className={footerLink}>
          Contact
        </Link>
      </footer>
    </div>
  );
}

/** A round tinted icon for result pages. */
export function ResultIcon({ tone, children }: { tone: 'success' | 'error' | 'info'; children: ReactNode }) {
  return (
    <span
      className={cx(
        'flex size-12 items-center justify-center rounded-full [&_svg]:size-6',
        tone === 'success' && 'bg-green-100 text-green-700 dark:bg-green-950/70 dark:text-green-400',
        tone === 'error' && 'bg-red-100 text-red-700 dark:bg-red-950/70 dark:text-red-400',
        tone === 'info' && 'bg-brand-100 text-brand-700 dark:bg-brand-950/70 dark:text-brand-300',
      )}
    >
      {children}
    </span>
  );
}

/** Inline text link style used inside auth cards. */
export const authLink = cx(
  'rounded-sm font-medium text-brand-600 hover:text-brand-700 hover:underline underline-offset-4 dark:text-brand-400 dark:hover:text-brand-300',
  focusRing,
);
