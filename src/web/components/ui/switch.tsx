import type { ButtonHTMLAttributes, Ref } from 'react';
import { cx, focusRing } from './cx.ts';

export interface SwitchProps extends Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'onChange' | 'value'> {
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
  /**
   * While a change is being saved: the switch ignores presses and says so (aria-busy,
   * aria-disabled) but stays focusable. `disabled` would take the focus away from a keyboard user
   * who just pressed it (to the body: the next Space scrolls the page).
   */
  busy?: boolean;
  size?: 'sm' | 'md';
  ref?: Ref<HTMLButtonElement>;
}

/**
 * An on/off switch (role=switch, aria-checked). Name it with aria-label or with a <label htmlFor>
 * pointing at its id; Space and Enter toggle it like any button. `disabled` is for a switch that
 * cannot be used at all; `busy` for one whose last change is on its way.
 */
export function Switch({
  checked,
  onCheckedChange,
  busy = false,
  size = 'md',
  className,
  disabled,
  ...rest
}: SwitchProps) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      disabled={disabled}
      aria-disabled={busy || undefined}
      aria-busy={busy || undefined}
      onClick={() => {
        if (!busy) onCheckedChange(!checked);
      }}
      className={cx(
        'relative inline-flex shrink-0 cursor-pointer items-center rounded-full border-2 border-transparent transition-colors disabled:cursor-not-allowed disabled:opacity-50 aria-busy:cursor-progress',
        focusRing,
        size === 'md' ? 'h-6 w-11' : 'h-5 w-9',
        checked ? 'bg-brand-600 dark:bg-brand-500' : 'bg-slate-300 dark:bg-slate-600',
        className,
      )}
      {...rest}
    >
      <span
        aria-hidden="true"
        className={cx(
          'pointer-events-none block rounded-full bg-white shadow-sm ring-0 transition-transform',
          size === 'md' ? 'size-5' : 'size-4',
          checked ? (size === 'md' ? 'translate-x-5' : 'translate-x-4') : 'translate-x-0',
        )}
      />
    </button>
  );
}
