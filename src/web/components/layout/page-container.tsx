import type { HTMLAttributes } from 'react';
import { cx } from '../ui/cx.ts';

/** The content column: at most 1120px wide (docs/spec.md §9), with side padding that grows with the screen. */
export function PageContainer({ className, ...rest }: HTMLAttributes<HTMLDivElement>) {
  return <div className={cx('mx-auto w-full max-w-[1120px] px-4 sm:px-6', className)} {...rest} />;
}
