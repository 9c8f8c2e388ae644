import type { RouteObject } from 'react-router';
import { page } from '../../lib/lazy-page.ts';

/** Public sign-in related routes (docs/spec.md §2); each page is its own lazy chunk. */
export const authRoutes: RouteObject[] = [
  { path: '/signup', lazy: page(() => import('./signup-page.tsx'), 'SignUpPage') },
  { path: '/signin', lazy: page(() => import('./signin-page.tsx'), 'SignInPage') },
  { path: '/verify', lazy: page(() => import('./verify-page.tsx'), 'VerifyPage') },
  { path: '/forgot-password', lazy: page(() => import('./forgot-password-page.tsx'), 'ForgotPasswordPage') },
  { path: '/reset-password', lazy: page(() => import('./reset-password-page.tsx'), 'ResetPasswordPage') },
  { path: '/auth/callback', lazy: page(() => import('./auth-callback-page.tsx'), 'AuthCallbackPage') },
  {
    path: '/cancel-email-change',
    lazy: page(() => import('./cancel-email-change-page.tsx'), 'CancelEmailChangePage'),
  },
];
