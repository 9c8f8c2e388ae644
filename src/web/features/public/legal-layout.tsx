import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { PageContainer } from '../../components/layout/page-container.tsx';
import { PublicLayout } from '../../components/layout/public-layout.tsx';
import { cx, focusRing } from '../../components/ui/cx.ts';
import { Skeleton } from '../../components/ui/skeleton.tsx';
import { usePublicConfig } from '../../lib/public-config.ts';

const LEGAL_UPDATED = 'November 1, 2026';

export const proseLink = cx(
  'rounded-sm font-medium text-brand-600 underline underline-offset-4 hover:text-brand-700 dark:text-brand-400 dark:hover:text-brand-300',
  focusRing,
);

/** A long-form page (terms, privacy): title, date, an outline, then numbered sections. */
export function LegalLayout({
  title,
  intro,
  sections,
}: {
  title: string;
  intro: ReactNode;
  sections: Array<{ id: string; title: string; body: ReactNode }>;
}) {
  return (
    <PublicLayout>
      <PageContainer className="py-14 sm:py-20">
        <div className="mx-auto max-w-3xl">
          <h1 className="text-4xl font-semibold tracking-tight text-slate-900 sm:text-5xl dark:text-white">
            {title}
          </h1>
          <p className="mt-3 text-sm text-slate-500 dark:text-slate-400">Last updated {LEGAL_UPDATED}</p>
          <div className="mt-8 text-base leading-7 text-slate-700 dark:text-slate-300">{intro}</div>
          <nav
            aria-labelledby="toc-title"
            className="mt-10 rounded-2xl border border-slate-200 bg-slate-50 p-6 dark:border-slate-800 dark:bg-slate-900/60"
          >
            <h2 id="toc-title" className="text-sm font-semibold text-slate-900 dark:text-white">
              On This Page
            </h2>
            <ol className="mt-3 list-decimal gap-x-10 pl-7 text-sm marker:text-slate-400 sm:columns-2 [&>li]:mb-1.5 [&>li]:break-inside-avoid">
              {sections.map((s) => (
                <li key={s.id}>
                  <a
                    href={`#${s.id}`}
                    className={cx(
                      'text-slate-700 hover:text-brand-600 dark:text-slate-300 dark:hover:text-brand-400',
                      'rounded-sm',
                      focusRing,
                    )}
                  >
                    {s.title}
                  </a>
                </li>
              ))}
            </ol>
          </nav>
          <div className="mt-4">
            {sections.map((s, i) => (
              <section key={s.id} id={s.id} aria-labelledby={`${s.id}-title`} className="scroll-mt-20 pt-10">
                <h2
                  id={`${s.id}-title`}
                  className="text-xl font-semibold tracking-tight text-slate-900 dark:text-white"
                >
                  {i + 1}. {s.title}
                </h2>
                <div className="mt-4 space-y-4 text-base leading-7 text-slate-700 dark:text-slate-300 [&_li]:pl-1 [&_strong]:font-semibold [&_strong]:text-slate-900 dark:[&_strong]:text-white [&_ul]:list-disc [&_ul]:space-y-2 [&_ul]:pl-6 [&_ul]:marker:text-slate-400">
                  {s.body}
                </div>
              </section>
            ))}
          </div>
          <p className="mt-14 border-t border-slate-200 pt-6 text-sm text-slate-500 dark:border-slate-800 dark:text-slate-400">
            Questions about this page?{' '}
            <Link to="/contact" className={proseLink}>
              Contact us
            </Link>
            .
          </p>
        </div>
      </PageContainer>
    </PublicLayout>
  );
}

/** A config value in running text: a short placeholder while it loads. */
export function ConfigText({
  pick,
}: {
  pick: (c: NonNullable<ReturnType<typeof usePublicConfig>['data']>) => ReactNode;
}) {
  const config = usePublicConfig();
  if (config.data) return <>{pick(config.data)}</>;
  if (config.isError) return <>(unavailable)</>;
  return <Skeleton className="h-4 w-20 align-middle" />;
}

/** A mailto link to one of the configured addresses (support or abuse). */
export function ConfigMailto({ which }: { which: 'supportEmail' | 'abuseEmail' }) {
  return (
    <ConfigText
      pick={(c) => (
        <a href={`mailto:${c[which]}`} className={proseLink}>
          {c[which]}
        </a>
      )}
    />
  );
}
