import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { cx, focusRing } from '../ui/cx.ts';
import { Logo } from './logo.tsx';
import { PageContainer } from './page-container.tsx';

const linkClass = cx(
  'rounded-sm text-sm text-slate-600 transition-colors hover:text-slate-900 dark:text-slate-400 dark:hover:text-white',
  focusRing,
);

function Column({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div>
      <h2 className="text-sm font-semibold text-slate-900 dark:text-white">{title}</h2>
      <ul className="mt-3 space-y-2.5">{children}</ul>
    </div>
  );
}

/** Site footer, shared by the public pages and the app shell (docs/spec.md §2: Get Started, Sign In, legal, contact). */
export function SiteFooter() {
  const year = new Date().getFullYear();
  return (
    <footer className="border-t border-slate-200 bg-slate-50 dark:border-slate-800 dark:bg-slate-900/40">
      <PageContainer className="grid gap-10 py-12 md:grid-cols-[2fr_2fr]">
        <div className="max-w-xs">
          <Logo />
          <p className="mt-3 text-sm leading-6 text-slate-600 dark:text-slate-400">
            Send real test emails, keep every version, and share a link your client can open anywhere.
          </p>
        </div>
        <nav aria-label="Footer" className="grid grid-cols-2 gap-8">
          <Column title="Product">
            <li>
              <Link to="/plan" className={linkClass}>
                Pricing
              </Link>
            </li>
            <li>
              <Link to="/signup" className={linkClass}>
                Get Started
              </Link>
            </li>
            <li>
              <Link to="/signin" className={linkClass}>
                Sign In
              </Link>
            </li>
            <li>
              <Link to="/docs/api" className={linkClass}>
                API Reference
              </Link>
            </li>
          </Column>
          <Column title="Company">
            <li>
              <Link to="/terms" className={linkClass}>
                Terms of Service
              </Link>
            </li>
            <li>
              <Link to="/privacy" className={linkClass}>
                Privacy Policy
              </Link>
            </li>
            <li>
              <Link to="/contact" className={linkClass}>
                Contact
              </Link>
            </li>
          </Column>
        </nav>
      </PageContainer>
      <div className="border-t border-slate-200 dark:border-slate-800">
        <PageContainer className="py-6 text-sm text-slate-500 dark:text-slate-400">
          © {year} Proofmail. All rights reserved.
        </PageContainer>
      </div>
    </footer>
  );
}
