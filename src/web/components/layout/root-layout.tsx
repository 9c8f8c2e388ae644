import { Outlet, ScrollRestoration, useLocation, useMatches } from 'react-router';
import { useRouteFocus } from './route-focus.ts';

/**
 * The root of every route: a new page starts at the top (or at its #hash); back/forward restore.
 * After a client-side navigation the focus goes to the new page's heading (route-focus.ts).
 */
export function RootLayout() {
  const { pathname } = useLocation();
  const matches = useMatches();
  useRouteFocus({ pathname, routeId: matches[matches.length - 1]?.id ?? '' });
  return (
    <>
      <Outlet />
      <ScrollRestoration />
    </>
  );
}
