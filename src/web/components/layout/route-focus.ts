import { useEffect, useRef } from 'react';

/** A page as the router shows it: its address's path and the route that matched it. */
export interface ShownPage {
  pathname: string;
  routeId: string;
}

/**
 * Whether a client-side navigation from `previous` to `next` moves the focus to the new page's
 * heading, as accessible single-page apps do (the new page is announced, and the keyboard starts
 * from its top instead of the page's <body>, where it lands when the link that was used is gone):
 * - not on the first page, nor before the user has pressed a key or a pointer (the redirects of a
 *   first load: /app to its first screen, a signed-out visitor to /signin);
 * - not when only the query or hash changed (a search, a tab, a version of the same address);
 * - not when the same screen shows other data (another version of an email) and the focus is
 *   still in it (the control used is still there);
 * - not when the new page has put the focus in a field of its own (autofocus).
 */
export function movesFocus(
  previous: ShownPage | null,
  next: ShownPage,
  state: { acted: boolean; focusLost: boolean; focusInField: boolean },
): boolean {
  if (!previous || !state.acted) return false;
  if (previous.pathname === next.pathname) return false;
  if (previous.routeId === next.routeId && !state.focusLost) return false;
  return !state.focusInField;
}

/** Where a page puts the focus itself: a field (autofocus), or a dialog it opened. */
function inOwnField(el: Element): boolean {
  return Boolean(
    el.closest('input, textarea, select, [contenteditable="true"], [role="dialog"], [role="alertdialog"]'),
  );
}

/**
 * Focuses the page's heading (the <main>'s h1, else the first h1) once it shows: a page that
 * loads its data shows it later. Gives up when something else takes the focus first (the user
 * tabbing on, the page itself) or after 10 s. Answers a function that stops waiting.
 */
function focusHeadingWhenShown(): () => void {
  const tryFocus = () => {
    const heading =
      document.querySelector<HTMLElement>('main h1') ?? document.querySelector<HTMLElement>('h1');
    if (!heading) return false;
    // Focusable from script only (not a Tab stop), and without a ring: it is not a control.
    if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1;
    heading.classList.add('outline-none');
    heading.focus({ preventScroll: true });
    return true;
  };
  if (tryFocus()) return () => undefined;
  const observer = new MutationObserver(() => {
    if (tryFocus()) stop();
  });
  const timer = window.setTimeout(stop, 10_000);
  function stop() {
    observer.disconnect();
    document.removeEventListener('focusin', stop, true);
    window.clearTimeout(timer);
  }
  observer.observe(document.body, { childList: true, subtree: true });
  document.addEventListener('focusin', stop, true);
  return stop;
}

/** Moves the focus to the new page's heading on client-side navigation (see `movesFocus`). */
export function useRouteFocus(page: ShownPage): void {
  const shown = useRef<ShownPage | null>(null);
  const acted = useRef(false);
  useEffect(() => {
    const mark = () => {
      acted.current = true;
    };
    window.addEventListener('keydown', mark, true);
    window.addEventListener('pointerdown', mark, true);
    return () => {
      window.removeEventListener('keydown', mark, true);
      window.removeEventListener('pointerdown', mark, true);
    };
  }, []);
  const { pathname, routeId } = page;
  useEffect(() => {
    const previous = shown.current;
    const next = { pathname, routeId };
    shown.current = next;
    const active = document.activeElement;
    const focusLost = !active || active === document.body || !active.isConnected;
    const focusInField = !focusLost && inOwnField(active);
    if (!movesFocus(previous, next, { acted: acted.current, focusLost, focusInField })) return;
    return focusHeadingWhenShown();
  }, [pathname, routeId]);
}
