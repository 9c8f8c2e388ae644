import { Flag, MailX, Unlink } from 'lucide-react';
import { lazy, Suspense, useState, type ReactNode } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { LogoMark } from '../../components/layout/logo.tsx';
import type { PickedPin } from '../../components/review/pin-markers.tsx';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { cx, focusRing } from '../../components/ui/cx.ts';
import { EmailPreview } from '../../components/email-preview/email-preview.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { ApiError } from '../../lib/api.ts';
import { usePublicConfig } from '../../lib/public-config.ts';
import { dateTime } from '../../lib/relative-time.ts';
import { readViewerToken, usePublicEmail } from './api.ts';
import { useNearViewport } from './use-near-viewport.ts';

/*
 * /s/{slug} (docs/spec.md §2): what a client opens, often on a phone. No login, no app shell, no editor:
 * a slim frame around the email. The server sends noindex and no-referrer for this route, and the
 * page says noindex too. The link shows the thread's latest version unless `?v=` names another
 * (docs/decisions/0083-share-per-thread.md); a protected link asks for its password first
 * (docs/decisions/0084-viewer-tokens.md); reviewers approve, request changes or comment below.
 */

const footerLink = cx(
  'inline-flex items-center gap-1.5 rounded-md text-slate-500 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white',
  focusRing,
);

// Loaded when needed, so the page a client opens stays light: the gate only for a protected link,
// the review form when the reader scrolls near it (it sits below the email).
const PasswordGate = lazy(() => import('./password-gate.tsx').then((m) => ({ default: m.PasswordGate })));
const PinMarkers = lazy(() =>
  import('../../components/review/pin-markers.tsx').then((m) => ({ default: m.PinMarkers })),
);
const VersionPicker = lazy(() => import('./version-picker.tsx').then((m) => ({ default: m.VersionPicker })));
const ReviewSection = lazy(() => import('./review-section.tsx').then((m) => ({ default: m.ReviewSection })));

function SectionPlaceholder() {
  return (
    <h2 id="review-title" aria-busy="true" className="h-80 motion-safe:animate-pulse md:col-span-2">
      <span className="sr-only">Review</span>
    </h2>
  );
}

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
      <meta name="robots" content="noindex" />
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
  const [params] = useSearchParams();
  const version = Number(params.get('v')) || undefined;
  const [token, setToken] = useState(() => readViewerToken(slug));
  const email = usePublicEmail(slug, version, token);
  const [picking, setPicking] = useState(false);
  const [pin, setPin] = useState<PickedPin | null>(null);
  const [reviewSection, nearReview] = useNearViewport<HTMLElement>();
  const data = email.data;
  const subject = data ? data.subject || 'No Subject' : null;
  const err = email.error instanceof ApiError ? email.error : null;
  const locked = err?.code === 'password_required';
  useDocumentTitle(locked ? 'Password Required' : email.isError ? 'Email Not Found' : subject);

  if (locked) {
    return (
      <Shell slug={slug}>
        <Suspense fallback={null}>
          <PasswordGate slug={slug} onUnlocked={setToken} />
        </Suspense>
      </Shell>
    );
  }

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
        <header className="flex flex-wrap items-end justify-between gap-3 px-4 pt-6 pb-4 sm:px-5 sm:pt-0">
          {data ? (
            <>
              <div className="min-w-0">
                <h1 className="text-xl font-semibold tracking-tight break-words text-slate-900 sm:text-2xl dark:text-white">
                  {subject}
                </h1>
                <p className="mt-1 text-sm text-slate-500 dark:text-slate-400">
                  <time dateTime={data.createdAt}>{dateTime(data.createdAt)}</time>
                </p>
              </div>
              {data.versions.length > 1 ? (
                <Suspense fallback={null}>
                  <VersionPicker
                    versions={data.versions}
                    current={data.version}
                    onChange={() => {
                      setPin(null);
                      setPicking(false);
                    }}
                  />
                </Suspense>
              ) : null}
            </>
          ) : (
            <div aria-busy="true" aria-label="Loading email" className="space-y-2">
              <Skeleton className="block h-7 w-72 max-w-full" />
              <Skeleton className="block h-4 w-40" />
            </div>
          )}
        </header>
        {data ? (
          <EmailPreview
            html={data.html}
            title={`Email: ${subject}`}
            bleed
            overlay={
              // Loaded once there is a pin to show or to place.
              (picking || pin || data.reviews.some((r) => r.pin)) && (
                <Suspense fallback={null}>
                  <PinMarkers
                    reviews={data.reviews}
                    version={data.version}
                    draft={pin}
                    picking={picking}
                    onPick={(point) => {
                      setPin(point);
                      setPicking(false);
                    }}
                  />
                </Suspense>
              )
            }
          />
        ) : (
          <div className="h-[800px] bg-white motion-safe:animate-pulse sm:rounded-xl" />
        )}
        {data ? (
          <section
            ref={reviewSection}
            aria-labelledby="review-title"
            className="mx-4 mt-6 grid gap-6 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200 sm:mx-5 md:grid-cols-2 dark:bg-slate-900 dark:ring-slate-800"
          >
            {nearReview ? (
              <Suspense fallback={<SectionPlaceholder />}>
                <ReviewSection
                  slug={slug}
                  token={token}
                  email={data}
                  pin={pin}
                  picking={picking}
                  onPickingChange={setPicking}
                  onClearPin={() => setPin(null)}
                />
              </Suspense>
            ) : (
              <SectionPlaceholder />
            )}
          </section>
        ) : null}
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
