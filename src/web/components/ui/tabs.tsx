import {
  createContext,
  useContext,
  useId,
  useState,
  type HTMLAttributes,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { cx, focusRing } from './cx.ts';

interface TabsState {
  value: string;
  select: (value: string) => void;
  idFor: (value: string, part: 'tab' | 'panel') => string;
}

const TabsContext = createContext<TabsState | null>(null);

function useTabs(): TabsState {
  const ctx = useContext(TabsContext);
  if (!ctx) throw new Error('Tabs parts must be inside <Tabs>');
  return ctx;
}

export interface TabsProps {
  /** Controlled value; omit and pass defaultValue for uncontrolled tabs. */
  value?: string;
  defaultValue?: string;
  onValueChange?: (value: string) => void;
  className?: string;
  children: ReactNode;
}

/** WAI-ARIA tabs: arrow keys move and select, Home/End jump, only the active tab is in the tab order. */
export function Tabs({ value, defaultValue = '', onValueChange, className, children }: TabsProps) {
  const [inner, setInner] = useState(defaultValue);
  const base = useId();
  const current = value ?? inner;
  const state: TabsState = {
    value: current,
    select: (next) => {
      if (value === undefined) setInner(next);
      onValueChange?.(next);
    },
    idFor: (v, part) => `${base}-${part}-${v.replace(/[^a-zA-Z0-9_-]/g, '_')}`,
  };
  return (
    <TabsContext.Provider value={state}>
      <div className={className}>{children}</div>
    </TabsContext.Provider>
  );
}

export function TabsList({ className, children, ...rest }: HTMLAttributes<HTMLDivElement>) {
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const tabs = Array.from(
      e.currentTarget.querySelectorAll<HTMLButtonElement>('[role="tab"]:not(:disabled)'),
    );
    const index = tabs.indexOf(document.activeElement as HTMLButtonElement);
    if (index < 0 || tabs.length === 0) return;
    let next: number;
    if (e.key === 'ArrowRight') next = (index + 1) % tabs.length;
    else if (e.key === 'ArrowLeft') next = (index - 1 + tabs.length) % tabs.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = tabs.length - 1;
    else return;
    e.preventDefault();
    tabs[next]?.focus();
    tabs[next]?.click();
  };
  return (
    <div
      role="tablist"
      className={cx(
        'inline-flex items-center gap-1 rounded-lg bg-slate-100 p-1 text-slate-600 dark:bg-slate-800 dark:text-slate-400',
        className,
      )}
      onKeyDown={onKeyDown}
      {...rest}
    >
      {children}
    </div>
  );
}

export interface TabsTriggerProps {
  value: string;
  disabled?: boolean;
  className?: string;
  children: ReactNode;
}

export function TabsTrigger({ value, disabled, className, children }: TabsTriggerProps) {
  const tabs = useTabs();
  const selected = tabs.value === value;
  return (
    <button
      type="button"
      role="tab"
      id={tabs.idFor(value, 'tab')}
      aria-selected={selected}
      aria-controls={tabs.idFor(value, 'panel')}
      tabIndex={selected ? 0 : -1}
      disabled={disabled}
      onClick={() => tabs.select(value)}
      className={cx(
        'inline-flex h-8 items-center justify-center gap-2 rounded-md px-3 text-sm font-medium whitespace-nowrap transition-colors disabled:opacity-50 [&_svg]:size-4',
        focusRing,
        selected
          ? 'bg-white text-slate-900 shadow-sm dark:bg-slate-950 dark:text-white'
          : 'hover:text-slate-900 dark:hover:text-white',
        className,
      )}
    >
      {children}
    </button>
  );
}

export interface TabsContentProps extends HTMLAttributes<HTMLDivElement> {
  value: string;
}

export function TabsContent({ value, className, children, ...rest }: TabsContentProps) {
  const tabs = useTabs();
  if (tabs.value !== value) return null;
  return (
    <div
      role="tabpanel"
      id={tabs.idFor(value, 'panel')}
      aria-labelledby={tabs.idFor(value, 'tab')}
      tabIndex={0}
      className={cx('mt-4 rounded-md', focusRing, className)}
      {...rest}
    >
      {children}
    </div>
  );
}
