import { MailX, Unlink } from 'lucide-react';
import { lazy, Suspense, useState } from 'react';
import { useParams, useSearchParams } from 'react-router';
import type { PickedPin } from '../../components/review/pin-markers.tsx';
import { useDocumentTitle } from '../../components/layout/use-document-title.ts';
import { EmailPreview } from '../../components/email-preview/email-preview.tsx';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { ApiError } from '../../lib/api.ts';
import { dateTime } from '../../lib/relative-time.ts';
import { readViewerToken, usePublicEmail } from './api.ts';
import { Problem, Shell } from './page-shell.tsx';
import { useNearViewport } from './use-near-viewport.ts';
import { useVersionOnShow } from './use-version-on-show.ts';

/*
 * /s/{slug} (docs/spec.md §2): what a client opens, often on a phone. No login, no app shell, no editor:
 * a slim frame around the email. The server sends noindex and no-referrer for this route, and the
 * page says noindex too. The link shows the thread's latest version unless `?v=` names another
 * (docs/decisions/0083-share-per-thread.md); a protected link asks for its password first
 * (docs/decisions/0084-viewer-tokens.md); reviewers approve, request changes or comment below.
 * An older version says a newer one exists, and so does the version on show when a newer one
 * comes while the page is open (use-version-on-show.ts). A version the live link does not have
 * (the API's `version_not_found`, which only a working, unlocked link answers) says so and links
 * to the latest; every other failure is the spec's Email Not Found, the same for a missing,
 * revoked or expired link.
 */

// Loaded when needed, so the page a client opens stays light: the gate only for a protected link,
// the review form when the reader scrolls near it (it sits below the email).
const PasswordGate = lazy(() => import('./password-gate.tsx').then((m) => ({ default: m.PasswordGate })));
const PinMarkers = lazy(() =>
  import('../../components/review/pin-markers.tsx').then((m) => ({ default: m.PinMarkers })),
);
const VersionPicker = lazy(() => import('./version-picker.tsx').then((m) => ({ default: m.VersionPicker })));
const NewerVersionNotice = lazy(() =>
  import('./newer-version-notice.tsx').then((m) => ({ default: m.NewerVersionNotice })),
);
const VersionNotAvailable = lazy(() =>
  import('./version-not-available.tsx').then((m) => ({ default: m.VersionNotAvailable })),
);
const ReviewSection = lazy(() => import('./review-section.tsx').then((m) => ({ default: m.ReviewSection })));

function SectionPlaceholder() {
  return (
    <h2 id="review-title" aria-busy="true" className="h-80 motion-safe:animate-pulse md:col-span-2">
      <span className="sr-only">Review</span>
    </h2>
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
  // A newer version found by a refetch is told, never swapped in under the reader.
  const data = useVersionOnShow(slug, version, token, email);
  const subject = data ? data.subject || 'No Subject' : null;
  const err = email.error instanceof ApiError ? email.error : null;
  const locked = err?.code === 'password_required';
  const missingVersion = err?.code === 'version_not_found' && version !== undefined;
  useDocumentTitle(
    locked
      ? 'Password Required'
      : missingVersion
        ? 'Version Not Available'
        : email.isError
          ? 'Email Not Found'
          : subject,
  );
  const leaveVersion = () => {
    setPin(null);
    setPicking(false);
  };

  if (locked) {
    return (
      <Shell slug={slug}>
        <Suspense fallback={null}>
          <PasswordGate slug={slug} onUnlocked={setToken} />
        </Suspense>
      </Shell>
    );
  }

  if (missingVersion) {
    return (
      <Suspense fallback={null}>
        <VersionNotAvailable slug={slug} version={version} />
      </Suspense>
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
                <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
                  <time dateTime={data.createdAt}>{dateTime(data.createdAt)}</time>
                </p>
              </div>
              {data.versions.length > 1 ? (
                <Suspense fallback={null}>
                  <VersionPicker versions={data.versions} current={data.version} onChange={leaveVersion} />
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
        {data && data.version < (data.versions[0]?.version ?? 0) ? (
          <Suspense fallback={null}>
            <NewerVersionNotice
              versions={data.versions}
              current={data.version}
              onFollow={leaveVersion}
              className="mx-4 mb-4 sm:mx-5"
            />
          </Suspense>
        ) : null}
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
                    onCancel={() => {
                      setPicking(false);
                      document.getElementById('review-pin')?.focus();
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
            // grid-cols-1 as well: an implicit column is as wide as its widest word, and a
            // reviewer's long URL would widen the page (minmax(0, 1fr) lets it wrap instead).
            className="mx-4 mt-6 grid grid-cols-1 gap-6 rounded-xl bg-white p-5 shadow-sm ring-1 ring-slate-200 sm:mx-5 md:grid-cols-2 dark:bg-slate-900 dark:ring-slate-800"
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
                  onVersionChange={leaveVersion}
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
