import { useEffect, useId, useState } from 'react';
import { Link, NavLink, useLocation } from 'react-router';
import { getToken } from '../../lib/api.ts';
import { buttonClasses } from '../ui/button.tsx';
import { cx, focusRing } from '../ui/cx.ts';
import { MenuIcon, XIcon } from '../ui/icons.tsx';
import { Logo } from './logo.tsx';
import { PageContainer } from './page-container.tsx';
import { ThemeToggle } from './theme-toggle.tsx';

const NAV = [
  { to: '/#features', label: 'Features' },
  { to: '/plan', label: 'Pricing' },
  { to: '/contact', label: 'Contact' },
] as const;

/** Page links show which page is current; an in-page anchor (/#features) never is. */
function NavItem({ to, label }: { to: string; label: string }) {
  if (to.includes('#')) {
    return (
      <Link to={to} className={navLinkClass({ isActive: false })}>
        {label}
      </Link>
    );
  }
  return (
    <NavLink to={to} className={navLinkClass} end>
      {label}
    </NavLink>
  );
}

const navLinkClass = ({ isActive }: { isActive: boolean }) =>
  cx(
    'rounded-md px-3 py-2 text-sm font-medium transition-colors',
    focusRing,
    isActive
      ? 'text-slate-900 dark:text-white'
      : 'text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white',
  );

/**
 * Sign In / Get Started Free, or the way back into the app for someone with a session (a stale
 * token is harmless: the app shell checks it and sends the visitor to sign in).
 */
function AccountLinks({ variant }: { variant: 'bar' | 'menu' }) {
  if (getToken()) {
    return (
      <Link
        to="/app/send"
        className={buttonClasses({
          variant: 'primary',
          className: variant === 'menu' ? 'col-span-2' : undefined,
        })}
      >
        Open Proofmail
      </Link>
    );
  }
  return (
    <>
      <Link to="/signin" className={buttonClasses({ variant: variant === 'bar' ? 'ghost' : 'outline' })}>
        Sign In
      </Link>
      <Link to="/signup" className={buttonClasses({ variant: 'primary' })}>
        Get Started Free
      </Link>
    </>
  );
}

/** The public site header: brand, nav, Sign In, Get Started Free and the theme toggle. */
export function SiteHeader() {
  const [menuOpen, setMenuOpen] = useState(false);
  const menuId = useId();
  const location = useLocation();

  // A navigation closes the phone menu.
  const [seenKey, setSeenKey] = useState(location.key);
  if (seenKey !== location.key) {
    setSeenKey(location.key);
    setMenuOpen(false);
  }

  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setMenuOpen(false);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [menuOpen]);

  return (
    <header className="sticky top-0 z-40 border-b border-slate-200/80 bg-white/85 backdrop-blur-md dark:border-slate-800/80 dark:bg-slate-950/85">
      <PageContainer className="flex h-16 items-center gap-4">
        <Logo />
        <nav aria-label="Main" className="ml-4 hidden items-center gap-1 md:flex">
          {NAV.map((item) => (
            <NavItem key={item.to} {...item} />
          ))}
        </nav>
        <div className="ml-auto flex items-center gap-2">
          <ThemeToggle />
          {/* A wrapper hides these on phones: `hidden` on the links would fight their inline-flex. */}
          <div className="hidden items-center gap-2 sm:flex">
            <AccountLinks variant="bar" />
          </div>
          <button
            type="button"
            className={buttonClasses({ variant: 'ghost', size: 'icon', className: 'sm:hidden' })}
            aria-expanded={menuOpen}
            aria-controls={menuId}
            aria-label={menuOpen ? 'Close menu' : 'Open menu'}
            onClick={() => setMenuOpen((v) => !v)}
          >
            {menuOpen ? <XIcon /> : <MenuIcon />}
          </button>
        </div>
      </PageContainer>
      {menuOpen ? (
        <div id={menuId} className="border-t border-slate-200 sm:hidden dark:border-slate-800">
          <PageContainer className="flex flex-col gap-1 py-3">
            <nav aria-label="Main (mobile)" className="-mx-3 flex flex-col">
              {NAV.map((item) => (
                <NavItem key={item.to} {...item} />
              ))}
            </nav>
            <div className="mt-2 grid grid-cols-2 gap-2 border-t border-slate-200 pt-3 dark:border-slate-800">
              <AccountLinks variant="menu" />
            </div>
          </PageContainer>
        </div>
      ) : null}
    </header>
  );
}
