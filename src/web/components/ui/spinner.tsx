import { cx } from './cx.ts';

export interface SpinnerProps {
  className?: string;
  /** Text for assistive technology; pass null when a surrounding element already says "busy". */
  label?: string | null;
}

/** A small spinning ring that inherits the current text colour. */
export function Spinner({ className, label = 'Loading' }: SpinnerProps) {
  return (
    <span className={cx('inline-flex shrink-0', className)} role={label ? 'status' : undefined}>
      <svg
        className="size-full animate-spin motion-reduce:animate-[spin_1.5s_linear_infinite]"
        viewBox="0 0 24 24"
        fill="none"
        aria-hidden="true"
      >
        <circle cx="12" cy="12" r="9" stroke="currentColor" strokeOpacity="0.25" strokeWidth="3" />
        <path d="M21 12a9 9 0 0 0-9-9" stroke="currentColor" strokeWidth="3" strokeLinecap="round" />
      </svg>
      {label ? <span className="sr-only">{label}</span> : null}
    </span>
  );
}
