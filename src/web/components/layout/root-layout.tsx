import { Outlet, ScrollRestoration } from 'react-router';

/** The root of every route: a new page starts at the top (or at its #hash); back/forward restore. */
export function RootLayout() {
  return (
    <>
      <Outlet />
      <ScrollRestoration />
    </>
  );
}
