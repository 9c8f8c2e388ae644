import type { ComponentType } from 'react';
import { createBrowserRouter, type RouteObject } from 'react-router';
import { RouteError } from './components/route-error.tsx';

/**
 * Routes compose features; every page is a lazy chunk so the landing page stays light.
 * `page(load, 'Name')` turns a module's named export into a route's Component.
 */
function page<M extends Record<string, unknown>>(load: () => Promise<M>, name: keyof M & string): RouteObject['lazy'] {
  return async () => ({ Component: (await load())[name] as ComponentType });
}

export const routes: RouteObject[] = [
  {
    errorElement: <RouteError />,
    children: [
      { path: '/', lazy: page(() => import('./features/public/landing-page.tsx'), 'LandingPage') },
      { path: '/plan', lazy: page(() => import('./features/public/plan-page.tsx'), 'PlanPage') },
      { path: '/terms', lazy: page(() => import('./features/public/terms-page.tsx'), 'TermsPage') },
      { path: '/privacy', lazy: page(() => import('./features/public/privacy-page.tsx'), 'PrivacyPage') },
      { path: '/contact', lazy: page(() => import('./features/public/contact-page.tsx'), 'ContactPage') },
      { path: '*', lazy: page(() => import('./features/public/not-found-page.tsx'), 'NotFoundPage') },
    ],
  },
];

export const router = createBrowserRouter(routes);
