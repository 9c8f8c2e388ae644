import { Link } from 'react-router';
import { cx, focusRing } from '../ui/cx.ts';

/** The brand mark (same drawing as the favicon). */
export function LogoMark({ className }: { className?: string }) {
  return (
    <svg viewBox="0 0 32 32" aria-hidden="true" className={cx('size-7 shrink-0', className)}>
      <rect width="32" height="32" rx="7" className="fill-brand-600 dark:fill-brand-500" />
      <path
        d="M7 10.5 16 17l9-6.5M7 10h18v12H7z"
        fill="none"
        stroke="#fff"
        strokeWidth="2.2"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/** "Proofmail" with its mark, linking home. */
export function Logo({ to = '/', className }: { to?: string; className?: string }) {
  return (
    <Link
      to={to}
      className={cx(
        'inline-flex items-center gap-2 rounded-md text-lg font-semibold tracking-tight text-slate-900 dark:text-white',
        focusRing,
        className,
      )}
    >
      <LogoMark />
      <span>Proofmail</span>
    </Link>
  );
}
