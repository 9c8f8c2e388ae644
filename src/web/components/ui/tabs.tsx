import { ChevronLeft, ChevronRight } from 'lucide-react';
import {
  createContext,
  useCallback,
  useContext,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type HTMLAttributes,
  type KeyboardEvent,
  type ReactNode,
  type RefObject,
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

export interface TabsListProps extends HTMLAttributes<HTMLDivElement> {
  /**
   * When the tabs do not fit (a phone), the list scrolls sideways and shows a chevron at each edge
   * that hides tabs: a sign there is more, which scrolls to it when clicked.
   */
  scrollable?: boolean;
}

/** Which ends of a scrolling tab list hide tabs. */
interface HiddenEnds {
  start: boolean;
  end: boolean;
}

function useHiddenEnds(list: RefObject<HTMLDivElement | null>, enabled: boolean) {
  const [hidden, setHidden] = useState<HiddenEnds>({ start: false, end: false });
  const measure = useCallback(() => {
    const el = list.current;
    if (!el) return;
    const start = el.scrollLeft > 1;
    const end = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    setHidden((prev) => (prev.start === start && prev.end === end ? prev : { start, end }));
  }, [list]);
  useLayoutEffect(() => {
    const el = list.current;
    if (!enabled || !el) return;
    measure();
    // The room changes with the window; the tabs' widths when their font loads.
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    for (const child of Array.from(el.children)) observer.observe(child);
    return () => observer.disconnect();
  }, [enabled, list, measure]);
  return { hidden, measure };
}

export function TabsList({ className, children, scrollable = false, ...rest }: TabsListProps) {
  const ref = useRef<HTMLDivElement>(null);
  const { hidden, measure } = useHiddenEnds(ref, scrollable);
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
  const list = (
    <div
      ref={ref}
      role="tablist"
      className={cx(
        'inline-flex items-center gap-1 rounded-lg bg-slate-100 p-1 text-slate-600 dark:bg-slate-800 dark:text-slate-400',
        // The chevrons show that it scrolls; a scrollbar under the tabs would only add height.
        scrollable && 'max-w-full overflow-x-auto [scrollbar-width:none]',
        className,
      )}
      onKeyDown={onKeyDown}
      onScroll={scrollable ? measure : undefined}
      {...rest}
    >
      {children}
    </div>
  );
  if (!scrollable) return list;
  const scrollBy = (direction: 1 | -1) => {
    const el = ref.current;
    if (!el) return;
    const still = window.matchMedia('(prefers-reduced-motion: reduce)').matches;
    el.scrollBy({ left: direction * el.clientWidth * 0.75, behavior: still ? 'auto' : 'smooth' });
  };
  return (
    <div className="relative inline-flex max-w-full align-top">
      {list}
      {hidden.start ? <ScrollHint side="start" onClick={() => scrollBy(-1)} /> : null}
      {hidden.end ? <ScrollHint side="end" onClick={() => scrollBy(1)} /> : null}
    </div>
  );
}

/**
 * The sign at an edge of a scrolling tab list that tabs lie beyond it. Pointer only: the
 * keyboard moves between tabs with the arrow keys, and a focused tab scrolls into view.
 */
function ScrollHint({ side, onClick }: { side: 'start' | 'end'; onClick: () => void }) {
  return (
    <button
      type="button"
      tabIndex={-1}
      aria-hidden="true"
      data-scroll-hint={side}
      onClick={onClick}
      className={cx(
        'absolute inset-y-0 flex w-10 cursor-pointer items-center text-slate-500 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white [&_svg]:size-4',
        side === 'start'
          ? 'left-0 justify-start rounded-l-lg bg-gradient-to-r pl-1'
          : 'right-0 justify-end rounded-r-lg bg-gradient-to-l pr-1',
        'from-slate-100 from-40% to-transparent dark:from-slate-800',
      )}
    >
      {side === 'start' ? <ChevronLeft /> : <ChevronRight />}
    </button>
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
