import { Link } from 'react-router';
import { usePublicConfig } from '../../lib/public-config.ts';

/**
 * Shown while the server has no SMTP relay (no SMTP_URL): every mail goes to the local catcher,
 * so nobody receives anything. Mounted by the layouts; renders nothing otherwise.
 */
export function MailCatcherBanner() {
  const { data } = usePublicConfig();
  if (!data?.mailCatcher) return null;
  return (
    <div
      role="note"
      aria-label="Local mail catcher"
      data-testid="mail-catcher-banner"
      className="border-b border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900/60 dark:bg-amber-950/50 dark:text-amber-200"
    >
      <p className="mx-auto flex max-w-[1120px] flex-wrap items-center justify-center gap-x-2 gap-y-1 px-4 py-2 text-center text-sm sm:px-6">
        {/* Inline icon: this banner may sit on the landing page, which stays free of lucide-react. */}
        <svg
          viewBox="0 0 24 24"
          fill="none"
          stroke="currentColor"
          strokeWidth="2"
          strokeLinecap="round"
          strokeLinejoin="round"
          aria-hidden="true"
          className="size-4 shrink-0"
        >
          <rect width="20" height="16" x="2" y="4" rx="2" />
          <path d="m22 7-8.97 5.7a1.94 1.94 0 0 1-2.06 0L2 7" />
        </svg>
        <span>Mail is caught locally and not delivered: no SMTP server is configured.</span>
        <Link
          to="/dev/mailbox"
          className="font-medium underline underline-offset-2 hover:text-amber-950 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-amber-600 dark:hover:text-amber-100"
        >
          Open the local mailbox
        </Link>
      </p>
    </div>
  );
}
