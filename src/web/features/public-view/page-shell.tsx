import { Flag } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { LogoMark } from '../../components/layout/logo.tsx';
import { cx, focusRing } from '../../components/ui/cx.ts';
import { usePublicConfig } from '../../lib/public-config.ts';

/** The slim frame of /s/{slug} (public-email-page.tsx): no app shell, a footer, and its problem pages. */

const footerLink = cx(
  'inline-flex items-center gap-1.5 rounded-md text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white',
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

export function Shell({ children, slug }: { children: ReactNode; slug?: string }) {
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

export function Problem({
  icon,
  title,
  text,
  action,
  slug,
}: {
  icon: ReactNode;
  title: string;
  text: string;
  action?: ReactNode;
  /** Only for a link known to work (it gets Report abuse); never for a dead one. */
  slug?: string;
}) {
  return (
    <Shell slug={slug}>
      <div className="mx-auto flex max-w-md flex-col items-center px-6 py-24 text-center sm:py-32">
        <span className="flex size-14 items-center justify-center rounded-full bg-white text-slate-500 shadow-sm dark:bg-slate-900 dark:text-slate-400 [&_svg]:size-7">
          {icon}
        </span>
        <h1 className="mt-6 text-2xl font-semibold tracking-tight text-slate-900 dark:text-white">{title}</h1>
        <p className="mt-2 text-slate-600 dark:text-slate-400">{text}</p>
        {action}
      </div>
    </Shell>
  );
}
