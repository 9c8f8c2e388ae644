import { createBrowserRouter, type RouteObject } from 'react-router';
import { FirstLoad } from './components/layout/first-load.tsx';
import { RootLayout } from './components/layout/root-layout.tsx';
import { RouteError } from './components/route-error.tsx';
import { appRoutes } from './app/app-routes.tsx';
import { authRoutes } from './features/auth/auth-routes.tsx';
import { redirectSignedInLoader } from './features/auth/redirect-signed-in.ts';
import { page } from './lib/lazy-page.ts';

/** Routes compose features; every page is a lazy chunk so the landing page stays light. */

const routes: RouteObject[] = [
  {
    Component: RootLayout, // outlet + scroll restoration (new pages start at the top)
    HydrateFallback: FirstLoad, // while the first page's lazy chunk (and loader) loads
    errorElement: <RouteError />,
    children: [
      // Signed-in visitors go to /app/send before the landing page renders (docs/spec.md §2).
      {
        path: '/',
        loader: redirectSignedInLoader,
        lazy: page(() => import('./features/public/landing-page.tsx'), 'LandingPage'),
      },
      { path: '/plan', lazy: page(() => import('./app/plan-page.tsx'), 'PlanPage') },
      { path: '/terms', lazy: page(() => import('./features/public/terms-page.tsx'), 'TermsPage') },
      { path: '/privacy', lazy: page(() => import('./features/public/privacy-page.tsx'), 'PrivacyPage') },
      { path: '/contact', lazy: page(() => import('./features/public/contact-page.tsx'), 'ContactPage') },
      // The API Reference, public, rendered from GET /api/openapi.json.
      {
        path: '/docs/api',
        lazy: page(() => import('./features/api-reference/api-reference-page.tsx'), 'ApiReferencePage'),
      },
      ...authRoutes, // /signup /signin /verify /forgot-password /reset-password /auth/callback
      ...appRoutes, // /app/* inside the signed-in shell
      // The public share view: no login, no app shell (docs/spec.md §2); without a slug, Invalid share link.
      {
        path: '/s/:slug?',
        lazy: page(() => import('./features/public-view/public-email-page.tsx'), 'PublicEmailPage'),
      },
      // The local mail catcher's mailbox (no SMTP_URL; the server answers it on loopback only).
      {
        path: '/dev/mailbox',
        lazy: page(() => import('./features/dev-mailbox/mailbox-page.tsx'), 'MailboxPage'),
      },
      { path: '*', lazy: page(() => import('./features/public/not-found-page.tsx'), 'NotFoundPage') },
    ],
  },
];

export const router = createBrowserRouter(routes);
