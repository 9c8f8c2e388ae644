import { Navigate, type RouteObject } from 'react-router';
import { page } from '../lib/lazy-page.ts';

/**
 * Everything under /app (docs/spec.md §2), inside the signed-in shell.
 */
export const appRoutes: RouteObject[] = [
  {
    path: '/app',
    lazy: page(() => import('./app-shell.tsx'), 'AppShell'),
    children: [
      // An element, not a loader redirect: a leaf route without one makes React Router warn.
      { index: true, element: <Navigate to="/app/send" replace /> },
      { path: 'send', lazy: page(() => import('../features/send/send-page.tsx'), 'SendPage') },
      { path: 'history', lazy: page(() => import('../features/history/history-page.tsx'), 'HistoryPage') },
      {
        path: 'email/:id',
        lazy: page(() => import('../features/email-detail/email-detail-page.tsx'), 'EmailDetailPage'),
      },
      // Two versions of an email, compared (docs/architecture.md, "Versions and compare").
      {
        path: 'email/:id/compare/:otherId',
        lazy: page(() => import('../features/email-detail/compare/compare-page.tsx'), 'ComparePage'),
      },
      { path: 'profile', lazy: page(() => import('../features/account/profile-page.tsx'), 'ProfilePage') },
      { path: 'account', lazy: page(() => import('./account-page.tsx'), 'AccountPage') },
      { path: 'about', lazy: page(() => import('./about-page.tsx'), 'AboutPage') },
    ],
  },
];
