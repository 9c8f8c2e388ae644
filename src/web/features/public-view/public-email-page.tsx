import { useQuery } from '@tanstack/react-query';
import { Flag, MailX, Unlink } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import type { PublicEmail } from '../../../shared/contract/email.ts';
import { LogoMark } from '../../components/layout/logo.tsx';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { cx, focusRing } from '../../components/ui/cx.ts';
import { EmailPreview } from '../../components/email-preview/email-preview.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { api } from '../../lib/api.ts';
import { usePublicConfig } from '../../lib/public-config.ts';
import { dateTime } from '../../lib/relative-time.ts';

/*
 * /s/{slug} (docs/spec.md §2): what a client opens, often on a phone. No login, no app shell, no editor:
 * a slim frame around the email. The server sends noindex and no-referrer for this route.
 */

const footerLink = cx(
  'inline-flex items-center gap-1.5 rounded-md text-slate-500 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white',
  focusRing,
);

function Footer({ slug }: { slug?: string }) {
  const config = usePublicConfig();
  const abuse = config.data?.abuseEmail;
  return (
    <footer className="mx-auto flex w-full max-w-[880px] flex-wrap items-center justify-between gap-3 px-4 py-6 text-sm">
      <Link to="/" className={footerLink}>
        <LogoMark className="size-5" />
        Created with Proofmail
      </Link>
      {abuse && slug ? (
        <a
          href={`mailto:${abuse}?subject=${encodeURIComponent(`Report abuse: ${window.location.origin}/s/${slug}`)}`}
          className={footerLink}
        >
          <Flag aria-hidden="true" className="size-3.5" />
          Report abuse
        </a>
      ) : null}
    </footer>
  );
}

function Shell({ children, slug }: { children: ReactNode; slug?: string }) {
  return (
    <div className="flex min-h-dvh flex-col bg-slate-100 dark:bg-slate-950">
      <main id="main" className="flex-1">
        {children}
      </main>
      <Footer slug={slug} />
    </div>
  );
}

function Problem({ icon, title, text }: { icon: ReactNode; title: string; text: string }) {
  return (
    <Shell>
      <div className="mx-auto flex max-w-md flex-col items-center px-6 py-24 text-center sm:py-32">
        <span className="flex size-14 items-center justify-center rounded-full bg-white text-slate-500 shadow-sm dark:bg-slate-900 dark:text-slate-400 [&_svg]:size-7">
          {icon}
        </span>
        <h1 className="mt-6 text-2xl font-semibold tracking-tight text-slate-900 dark:text-white">{title}</h1>
        <p className="mt-2 text-slate-600 dark:text-slate-400">{text}</p>
      </div>
    </Shell>
  );
}

function PublicEmailView({ slug }: { slug: string }) {
  const email = useQuery({
    queryKey: ['public-email', slug],
    queryFn: ({ signal }) => api<PublicEmail>(`/api/email/public/${encodeURIComponent(slug)}`, { signal }),
    staleTime: 60_000,
  });
  const subject = email.data ? email.data.subject || 'No Subject' : null;
  useDocumentTitle(email.isError ? 'Email Not Found' : subject);

  if (email.isError) {
    return (
      <Problem
        icon={<MailX aria-hidden="true" />}
        title="Email Not Found"
        text="Email has been deleted or no longer public"
      />
    );
  }

  return (
    <Shell slug={slug}>
      <div className="mx-auto w-full max-w-[880px] sm:px-4 sm:pt-8">
        <header className="px-4 pt-6 pb-4 sm:px-5 sm:pt-0">
          {email.data ? (
            <>
              <h1 className="text-xl font-semibold tracking-tight break-words text-slate-900 sm:text-2xl dark:text-white">
                {subject}
              </h1>
              <p className="mt-1 text-sm text-slate-500 dark:text-slate-400">
                <time dateTime={email.data.createdAt}>{dateTime(email.data.createdAt)}</time>
              </p>
            </>
          ) : (
            <div aria-busy="true" aria-label="Loading email" className="space-y-2">
              <Skeleton className="block h-7 w-72 max-w-full" />
              <Skeleton className="block h-4 w-40" />
            </div>
          )}
        </header>
        {email.data ? (
          <EmailPreview html={email.data.html} title={`Email: ${subject}`} bleed />
        ) : (
          <div className="h-[800px] animate-pulse bg-white sm:rounded-xl" />
        )}
      </div>
    </Shell>
  );
}

function InvalidLink() {
  useDocumentTitle('Invalid share link');
  return (
    <Problem
      icon={<Unlink aria-hidden="true" />}
      title="Invalid share link"
      text="This link is missing part of its address. Ask the sender to copy the whole link again."
    />
  );
}

export function PublicEmailPage() {
  const { slug } = useParams();
  if (!slug) return <InvalidLink />;
  return <PublicEmailView slug={slug} />;
}
