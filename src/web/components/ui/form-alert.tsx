import { CircleAlert, Info } from 'lucide-react';
import type { ReactNode } from 'react';
import { cx } from './cx.ts';

/**
 * An in-page message above a form (docs/spec.md §8 "In-page messages"). Errors are announced (role=alert);
 * notices are polite.
 */
export function FormAlert({
  tone = 'error',
  children,
  className,
  id,
}: {
  tone?: 'error' | 'info' | 'warning';
  children: ReactNode;
  className?: string;
  id?: string;
}) {
  if (!children) return null;
  const Icon = tone === 'info' ? Info : CircleAlert;
  return (
    <div
      id={id}
      role={tone === 'error' ? 'alert' : 'status'}
      data-tone={tone}
      className={cx(
        'flex items-start gap-2.5 rounded-lg border px-3 py-2.5 text-sm',
        tone === 'error' &&
          'border-red-200 bg-red-50 text-red-800 dark:border-red-900/60 dark:bg-red-950/40 dark:text-red-300',
        tone === 'info' &&
          'border-brand-200 bg-brand-50 text-brand-900 dark:border-brand-900/60 dark:bg-brand-950/40 dark:text-brand-200',
        tone === 'warning' &&
          'border-amber-300 bg-amber-50 text-amber-950 dark:border-amber-500/40 dark:bg-amber-950/40 dark:text-amber-100',
        className,
      )}
    >
      <Icon aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
      <div className="min-w-0 flex-1">{children}</div>
    </div>
  );
}
