import { lazy, Suspense, useState, type KeyboardEvent } from 'react';
import { themeLabel, useThemePreference } from '../../lib/theme.ts';
import { buttonClasses } from '../ui/button.tsx';
import { cx } from '../ui/cx.ts';
import { MoonIcon, SunIcon } from '../ui/icons.tsx';
import { menuOpenKey } from '../ui/menu-keys.ts';

const loadMenu = () => import('./theme-menu.tsx');
const ThemeMenu = lazy(loadMenu);

/**
 * The theme button: it shows the theme in use, and its menu (theme-menu.tsx: Light, Dark, System;
 * a light or dark pick is remembered by lib/theme.ts) loads when it is first pressed, with the
 * same keys a menu button takes, so the menu's code stays out of the landing route's first load
 * (docs/decisions/0087-no-modulepreload-polyfill.md). Pointing at or focusing the button fetches
 * it ahead of the press.
 */
export function ThemeToggle({ className }: { className?: string }) {
  const { theme, preference } = useThemePreference();
  const [opened, setOpened] = useState<'first' | 'last' | null>(null);
  const prefetch = () => void loadMenu();
  const onKeyDown = (e: KeyboardEvent<HTMLButtonElement>) => {
    const where = menuOpenKey(e.key);
    if (!where) return;
    e.preventDefault();
    setOpened(where);
  };
  const button = (
    <div className={cx('relative inline-block', className)}>
      <button
        type="button"
        aria-haspopup="menu"
        aria-expanded={false}
        aria-label={themeLabel(preference)}
        className={buttonClasses({ variant: 'ghost', size: 'icon' })}
        onPointerEnter={prefetch}
        onFocus={prefetch}
        onClick={() => setOpened('first')}
        onKeyDown={onKeyDown}
      >
        {theme === 'dark' ? <MoonIcon /> : <SunIcon />}
      </button>
    </div>
  );
  if (!opened) return button;
  return (
    <Suspense fallback={button}>
      <ThemeMenu className={className} openOnMount={opened} />
    </Suspense>
  );
}
