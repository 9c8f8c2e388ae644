import { Info } from 'lucide-react';
import { Link, useLocation, useSearchParams } from 'react-router';
import type { PublicEmail } from '../../../shared/contract/email.ts';
import { cx, focusRing } from '../../components/ui/cx.ts';

/**
 * On an older version (`?v=` below the latest): says a newer one exists, in the owner's words
 * (src/web/features/email-detail/version-picker.tsx), and links to the latest, keeping the
 * preview's view. Shown above the email and again at the review form, so nobody approves an
 * old round without knowing.
 */
export function NewerVersionNotice({
  versions,
  current,
  onFollow,
  className,
}: {
  versions: PublicEmail['versions'];
  current: number;
  /** Called when the link is followed (the page drops a pin picked on this version). */
  onFollow?: () => void;
  className?: string;
}) {
  const { pathname } = useLocation();
  const [params] = useSearchParams();
  const latest = versions[0]?.version;
  if (latest === undefined || current >= latest) return null;
  const next = new URLSearchParams(params);
  next.delete('v');
  const search = next.toString();
  return (
    <p
      className={cx(
        'flex items-start gap-2 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900 ring-1 ring-amber-200 dark:bg-amber-950/40 dark:text-amber-100 dark:ring-amber-800/60',
        className,
      )}
      data-testid="newer-version"
      data-message=""
    >
      <Info aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
      <span className="min-w-0">
        A newer version exists: version {latest}.{' '}
        <Link
          to={search ? `${pathname}?${search}` : pathname}
          onClick={onFollow}
          className={cx(
            'rounded-sm font-medium underline underline-offset-2 hover:text-amber-950 dark:hover:text-white',
            focusRing,
          )}
        >
          View the latest version
        </Link>
      </span>
    </p>
  );
}
