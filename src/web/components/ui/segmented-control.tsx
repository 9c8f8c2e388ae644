import { useRef, type KeyboardEvent, type ReactNode } from 'react';
import { cx, focusRing } from './cx.ts';

export interface SegmentedOption<T extends string> {
  value: T;
  label: ReactNode;
  /** Accessible name when the label is short or an icon (e.g. "Mobile, 375 pixels"). */
  ariaLabel?: string;
  title?: string;
}

export interface SegmentedControlProps<T extends string> {
  /** Accessible name of the group. */
  label: string;
  options: ReadonlyArray<SegmentedOption<T>>;
  /** The selected option; null when none is (e.g. a width set by dragging). */
  value: T | null;
  onChange: (value: T) => void;
  className?: string;
}

/**
 * A row of mutually exclusive options: a WAI-ARIA radio group. Arrow keys move and select, only
 * the selected option (or the first, when none is) is in the tab order.
 */
export function SegmentedControl<T extends string>({
  label,
  options,
  value,
  onChange,
  className,
}: SegmentedControlProps<T>) {
  const group = useRef<HTMLDivElement>(null);
  const selectedIndex = options.findIndex((o) => o.value === value);
  const tabbable = selectedIndex < 0 ? 0 : selectedIndex;

  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step =
      e.key === 'ArrowRight' || e.key === 'ArrowDown'
        ? 1
        : e.key === 'ArrowLeft' || e.key === 'ArrowUp'
          ? -1
          : 0;
    const jump = e.key === 'Home' ? 0 : e.key === 'End' ? options.length - 1 : null;
    if (!step && jump === null) return;
    e.preventDefault();
    const buttons = Array.from(group.current?.querySelectorAll<HTMLButtonElement>('[role="radio"]') ?? []);
    const from = buttons.indexOf(document.activeElement as HTMLButtonElement);
    const next = jump ?? (from + step + options.length) % options.length;
    buttons[next]?.focus();
    const option = options[next];
    if (option) onChange(option.value);
  };

  return (
    <div
      ref={group}
      role="radiogroup"
      aria-label={label}
      onKeyDown={onKeyDown}
      className={cx(
        'inline-flex items-center gap-0.5 rounded-lg bg-slate-100 p-0.5 text-slate-600 dark:bg-slate-800 dark:text-slate-300',
        className,
      )}
    >
      {options.map((option, i) => {
        const checked = option.value === value;
        return (
          <button
            key={option.value}
            type="button"
            role="radio"
            aria-checked={checked}
            aria-label={option.ariaLabel}
            title={option.title}
            tabIndex={i === tabbable ? 0 : -1}
            onClick={() => onChange(option.value)}
            className={cx(
              'inline-flex h-7 items-center justify-center gap-1.5 rounded-md px-2.5 text-xs font-medium whitespace-nowrap transition-colors [&_svg]:size-3.5 [&_svg]:shrink-0',
              focusRing,
              checked
                ? 'bg-white text-slate-900 shadow-sm dark:bg-slate-950 dark:text-white'
                : 'hover:text-slate-900 dark:hover:text-white',
            )}
          >
            {option.label}
          </button>
        );
      })}
    </div>
  );
}
