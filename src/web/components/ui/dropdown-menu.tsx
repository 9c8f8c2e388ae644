import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useId,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { buttonClasses, type ButtonSize, type ButtonVariant } from './button.tsx';
import { menuOpenKey } from './menu-keys.ts';
import { cx } from './cx.ts';
import { CheckIcon } from './icons.tsx';

interface MenuState {
  close: (returnFocus: boolean) => void;
}

const MenuContext = createContext<MenuState | null>(null);

export interface DropdownMenuProps {
  /** What the trigger button shows (text, an avatar, an icon). */
  trigger: ReactNode;
  /** Accessible name of the trigger when it shows no text (e.g. "Account menu"). */
  label?: string;
  triggerVariant?: ButtonVariant;
  triggerSize?: ButtonSize;
  triggerClassName?: string;
  align?: 'start' | 'end';
  className?: string;
  /** Open at once on this item: for a menu whose code loads when its button is first pressed. */
  openOnMount?: 'first' | 'last';
  children: ReactNode;
}

const ITEM = '[role^="menuitem"]:not([aria-disabled="true"])';

/**
 * A menu button (WAI-ARIA): Enter/Space/ArrowDown open it on the first item, ArrowUp on the last;
 * arrows, Home/End and first letters move; Escape closes and returns focus; Tab and outside clicks close.
 */
export function DropdownMenu({
  trigger,
  label,
  triggerVariant = 'ghost',
  triggerSize = 'md',
  triggerClassName,
  align = 'end',
  className,
  openOnMount,
  children,
}: DropdownMenuProps) {
  const [open, setOpen] = useState(openOnMount !== undefined);
  const [focusOnOpen, setFocusOnOpen] = useState<'first' | 'last'>(openOnMount ?? 'first');
  const rootRef = useRef<HTMLDivElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const menuRef = useRef<HTMLDivElement>(null);
  const menuId = useId();
  const triggerId = useId();

  const items = () => Array.from(menuRef.current?.querySelectorAll<HTMLElement>(ITEM) ?? []);

  const close = useCallback((returnFocus: boolean) => {
    setOpen(false);
    if (returnFocus) triggerRef.current?.focus();
  }, []);

  useEffect(() => {
    if (!open) return;
    const list = items();
    (focusOnOpen === 'first' ? list[0] : list[list.length - 1])?.focus();
    const onPointerDown = (e: PointerEvent) => {
      if (!rootRef.current?.contains(e.target as Node)) close(false);
    };
    document.addEventListener('pointerdown', onPointerDown);
    return () => document.removeEventListener('pointerdown', onPointerDown);
  }, [open, focusOnOpen, close]);

  const openWith = (where: 'first' | 'last') => {
    setFocusOnOpen(where);
    setOpen(true);
  };

  const onTriggerKeyDown = (e: KeyboardEvent<HTMLButtonElement>) => {
    const where = menuOpenKey(e.key);
    if (!where) return;
    e.preventDefault();
    openWith(where);
  };

  const onMenuKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const list = items();
    const index = list.indexOf(document.activeElement as HTMLElement);
    const move = (i: number) => list[(i + list.length) % list.length]?.focus();
    switch (e.key) {
      case 'ArrowDown':
        e.preventDefault();
        move(index + 1);
        break;
      case 'ArrowUp':
        e.preventDefault();
        move(index < 0 ? -1 : index - 1);
        break;
      case 'Home':
        e.preventDefault();
        move(0);
        break;
      case 'End':
        e.preventDefault();
        move(-1);
        break;
      case 'Escape':
        e.preventDefault();
        e.stopPropagation();
        close(true);
        break;
      case 'Tab':
        close(false);
        break;
      default:
        if (e.key.length === 1 && /\S/.test(e.key)) {
          const key = e.key.toLowerCase();
          const order = [...list.slice(index + 1), ...list.slice(0, index + 1)];
          order.find((el) => el.textContent?.trim().toLowerCase().startsWith(key))?.focus();
        }
    }
  };

  return (
    <MenuContext.Provider value={{ close }}>
      <div ref={rootRef} className={cx('relative inline-block', className)}>
        <button
          ref={triggerRef}
          id={triggerId}
          type="button"
          aria-haspopup="menu"
          aria-expanded={open}
          aria-controls={open ? menuId : undefined}
          aria-label={label}
          className={buttonClasses({
            variant: triggerVariant,
            size: triggerSize,
            className: triggerClassName,
          })}
          onClick={() => (open ? close(false) : openWith('first'))}
          onKeyDown={onTriggerKeyDown}
        >
          {trigger}
        </button>
        {open ? (
          <div
            ref={menuRef}
            id={menuId}
            role="menu"
            aria-labelledby={triggerId}
            tabIndex={-1}
            onKeyDown={onMenuKeyDown}
            className={cx(
              'absolute z-50 mt-2 max-w-[min(20rem,calc(100vw-2rem))] min-w-48 origin-top rounded-lg border border-slate-200 bg-white p-1 text-slate-900 shadow-lg transition duration-100 starting:scale-95 starting:opacity-0 dark:border-slate-700 dark:bg-slate-900 dark:text-slate-100',
              align === 'end' ? 'right-0' : 'left-0',
            )}
          >
            {children}
          </div>
        ) : null}
      </div>
    </MenuContext.Provider>
  );
}

export interface DropdownMenuItemProps {
  onSelect: () => void;
  icon?: ReactNode;
  /** Makes it one of a set of choices (menuitemradio): true for the current one. */
  checked?: boolean;
  disabled?: boolean;
  destructive?: boolean;
  className?: string;
  children: ReactNode;
}

export function DropdownMenuItem({
  onSelect,
  icon,
  checked,
  disabled,
  destructive,
  className,
  children,
}: DropdownMenuItemProps) {
  const menu = useContext(MenuContext);
  const select = () => {
    if (disabled) return;
    menu?.close(true);
    onSelect();
  };
  return (
    <div
      role={checked === undefined ? 'menuitem' : 'menuitemradio'}
      aria-checked={checked}
      tabIndex={-1}
      aria-disabled={disabled || undefined}
      onClick={select}
      onKeyDown={(e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          select();
        }
      }}
      className={cx(
        'flex cursor-pointer items-center gap-2 rounded-md px-2.5 py-2 text-sm outline-none select-none aria-disabled:cursor-not-allowed aria-disabled:opacity-50 [&_svg]:size-4 [&_svg]:shrink-0',
        destructive
          ? 'text-red-600 hover:bg-red-50 focus:bg-red-50 dark:text-red-400 dark:hover:bg-red-950/50 dark:focus:bg-red-950/50'
          : 'hover:bg-slate-100 focus:bg-slate-100 dark:hover:bg-slate-800 dark:focus:bg-slate-800',
        className,
      )}
    >
      {icon ? <span className="text-current opacity-70">{icon}</span> : null}
      {children}
      {checked ? <CheckIcon className="ml-auto text-brand-600 dark:text-brand-400" /> : null}
    </div>
  );
}

export function DropdownMenuSeparator() {
  return <div role="separator" className="-mx-1 my-1 h-px bg-slate-200 dark:bg-slate-700" />;
}

/** Non-interactive text at the top of a menu (e.g. the signed-in email). */
export function DropdownMenuLabel({ className, children }: { className?: string; children: ReactNode }) {
  return (
    <div
      role="presentation"
      className={cx('truncate px-2.5 py-2 text-xs text-slate-500 dark:text-slate-400', className)}
    >
      {children}
    </div>
  );
}
