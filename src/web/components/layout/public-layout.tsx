import type { ReactNode } from 'react';
import { cx } from '../ui/cx.ts';
import { SiteFooter } from './site-footer.tsx';
import { SiteHeader } from './site-header.tsx';

/** Frame of every public page: skip link, header, the page's <main>, footer. */
export function PublicLayout({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <div className="flex min-h-dvh flex-col">
      <a
        href="#main"
        className="sr-only rounded-md bg-white px-4 py-2 text-sm font-medium text-slate-900 shadow-lg focus:not-sr-only focus:fixed focus:top-3 focus:left-3 focus:z-50 focus:outline-2 focus:outline-brand-600 dark:bg-slate-900 dark:text-white"
      >
        Skip to Content
      </a>
      <SiteHeader />
      <main id="main" tabIndex={-1} className={cx('flex-1 outline-none', className)}>
        {children}
      </main>
      <SiteFooter />
    </div>
  );
}
