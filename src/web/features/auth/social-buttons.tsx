import { useEffect, useState } from 'react';
import type { OAuthProvider } from '../../../shared/contract/auth.ts';
import { buttonClasses } from '../../components/ui/button.tsx';
import { Spinner } from '../../components/ui/spinner.tsx';
import { API_BASE } from '../../lib/api.ts';

function GoogleIcon() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true">
      <path
        fill="#4285F4"
        d="M22.56 12.25c0-.78-.07-1.53-.2-2.25H12v4.26h5.92a5.06 5.06 0 0 1-2.2 3.31v2.77h3.56c2.08-1.92 3.28-4.74 3.28-8.09Z"
      />
      <path
        fill="#34A853"
        d="M12 23c2.97 0 5.46-.98 7.28-2.66l-3.56-2.77c-.99.66-2.25 1.06-3.72 1.06-2.86 0-5.29-1.93-6.16-4.53H2.18v2.84A11 11 0 0 0 12 23Z"
      />
      <path
        fill="#FBBC05"
        d="M5.84 14.1A6.6 6.6 0 0 1 5.5 12c0-.73.13-1.44.34-2.1V7.06H2.18A11 11 0 0 0 1 12c0 1.78.43 3.45 1.18 4.94l3.66-2.84Z"
      />
      <path
        fill="#EA4335"
        d="M12 5.38c1.62 0 3.06.56 4.2 1.64l3.15-3.15A10.56 10.56 0 0 0 12 1 11 11 0 0 0 2.18 7.06l3.66 2.84C6.71 7.31 9.14 5.38 12 5.38Z"
      />
    </svg>
  );
}

function GitHubIcon() {
  return (
    <svg viewBox="0 0 24 24" aria-hidden="true" fill="currentColor">
      <path d="M12 .3a12 12 0 0 0-3.8 23.38c.6.12.82-.26.82-.57l-.01-2.04c-3.34.72-4.04-1.61-4.04-1.61-.55-1.39-1.33-1.76-1.33-1.76-1.09-.74.08-.73.08-.73 1.2.09 1.84 1.24 1.84 1.24 1.07 1.83 2.8 1.3 3.49 1 .1-.78.42-1.31.76-1.61-2.67-.3-5.47-1.33-5.47-5.93 0-1.31.47-2.38 1.24-3.22-.14-.3-.54-1.52.1-3.18 0 0 1.01-.32 3.3 1.23a11.5 11.5 0 0 1 6 0c2.28-1.55 3.29-1.23 3.29-1.23.64 1.66.24 2.88.12 3.18a4.65 4.65 0 0 1 1.23 3.22c0 4.61-2.8 5.63-5.48 5.92.42.36.81 1.1.81 2.22l-.01 3.29c0 .31.2.69.82.57A12 12 0 0 0 12 .3" />
    </svg>
  );
}

const PROVIDERS: Record<OAuthProvider, { label: string; icon: () => React.JSX.Element }> = {
  google: { label: 'Continue with Google', icon: GoogleIcon },
  github: { label: 'Continue with GitHub', icon: GitHubIcon },
};

/**
 * Continue with Google / GitHub (docs/spec.md §2), shown whether or not the server has configured
 * them: each is a plain link; the browser leaves for the provider and comes back to
 * /auth/callback, or, for a provider this server has not set up, straight back with
 * error=provider_not_configured, which the page explains (messages.ts).
 */
export function SocialButtons() {
  const [leaving, setLeaving] = useState<OAuthProvider | null>(null);
  useEffect(() => {
    // Back from the provider's page (bfcache): the spinner must not stay on.
    const onPageShow = (e: PageTransitionEvent) => {
      if (e.persisted) setLeaving(null);
    };
    window.addEventListener('pageshow', onPageShow);
    return () => window.removeEventListener('pageshow', onPageShow);
  }, []);
  return (
    <div className="space-y-5">
      <div className="grid gap-3">
        {(['google', 'github'] as const).map((provider) => {
          const { label, icon: Icon } = PROVIDERS[provider];
          return (
            <a
              key={provider}
              href={`${API_BASE}/api/auth/${provider}`}
              data-provider={provider}
              aria-busy={leaving === provider || undefined}
              onClick={() => setLeaving(provider)}
              className={buttonClasses({ variant: 'outline', className: 'w-full' })}
            >
              {leaving === provider ? <Spinner className="size-4" label={null} /> : <Icon />}
              {label}
            </a>
          );
        })}
      </div>
      <div className="flex items-center gap-3 text-xs font-medium tracking-wide text-slate-500 uppercase dark:text-slate-400">
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
        or continue with email
        <span className="h-px flex-1 bg-slate-200 dark:bg-slate-800" />
      </div>
    </div>
  );
}
