import { CircleAlert, CircleCheck, Info, X } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { cx, focusRing } from './cx.ts';
import { toast, type ToastItem } from './toast-store.ts';

const icons = {
  success: <CircleCheck aria-hidden="true" className="size-5 text-green-600 dark:text-green-400" />,
  error: <CircleAlert aria-hidden="true" className="size-5 text-red-600 dark:text-red-400" />,
  info: <Info aria-hidden="true" className="size-5 text-brand-600 dark:text-brand-400" />,
};

export function ToastList({ items }: { items: ToastItem[] }) {
  return (
    <>
      {items.map((t) => (
        <ToastView key={t.id} item={t} />
      ))}
    </>
  );
}

function ToastView({ item }: { item: ToastItem }) {
  const paused = useRef(false);
  const remaining = useRef(item.duration);

  useEffect(() => {
    // Count down in small steps so hovering or focusing the toast pauses it.
    const step = 100;
    const timer = window.setInterval(() => {
      if (paused.current) return;
      remaining.current -= step;
      if (remaining.current <= 0) toast.dismiss(item.id);
    }, step);
    return () => window.clearInterval(timer);
  }, [item.id]);

  return (
    <div
      role={item.kind === 'error' ? 'alert' : 'status'}
      aria-atomic="true"
      data-kind={item.kind}
      onMouseEnter={() => (paused.current = true)}
      onMouseLeave={() => (paused.current = false)}
      onFocus={() => (paused.current = true)}
      onBlur={() => (paused.current = false)}
      className={cx(
        'pointer-events-auto flex w-full max-w-sm items-start gap-3 rounded-xl border bg-white p-4 text-slate-900 shadow-lg transition duration-200 starting:translate-y-2 starting:opacity-0 dark:bg-slate-900 dark:text-slate-100',
        item.kind === 'error'
          ? 'border-red-200 dark:border-red-900/70'
          : 'border-slate-200 dark:border-slate-700',
      )}
    >
      <span className="mt-px">{icons[item.kind]}</span>
      <div className="min-w-0 flex-1">
        <p className="text-sm font-semibold break-words">{item.title}</p>
        {item.description ? (
          <p className="mt-0.5 text-sm break-words text-slate-600 dark:text-slate-400">{item.description}</p>
        ) : null}
      </div>
      <button
        type="button"
        aria-label="Dismiss notification"
        onClick={() => toast.dismiss(item.id)}
        className={cx(
          '-m-1 rounded-md p-1 text-slate-400 hover:bg-slate-100 hover:text-slate-700 dark:hover:bg-slate-800 dark:hover:text-slate-200',
          focusRing,
        )}
      >
        <X aria-hidden="true" className="size-4" />
      </button>
    </div>
  );
}
