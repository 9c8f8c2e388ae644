import { lazy, Suspense, useEffect, useState } from 'react';
import { newToastHostId, registerToastHost, useActiveToastHost, useToasts } from './toast-store.ts';

/**
 * Toasts: `toast.success(title, description?)` is polite (role=status); `toast.error(...)` is
 * assertive (role=alert) and stays a little longer. Mount <Toaster/> once at the root; open
 * dialogs mount their own, so toasts stay visible and announced above a modal.
 */
export { toast, useToasts, type ToastItem, type ToastKind } from './toast-store.ts';

// The list (icons, timers) loads with the first toast, so it costs no page its first load.
const ToastList = lazy(() => import('./toast-list.tsx').then((m) => ({ default: m.ToastList })));

export function Toaster() {
  const list = useToasts();
  const active = useActiveToastHost();
  const [host] = useState(newToastHostId);
  useEffect(() => registerToastHost(host), [host]);
  const rendering = host === active;
  return (
    <section
      aria-label="Notifications"
      aria-live="polite"
      aria-relevant="additions text"
      className="pointer-events-none fixed inset-x-0 bottom-0 z-[100] flex flex-col items-center gap-2 p-4 sm:items-end sm:p-6"
    >
      {rendering && list.length > 0 ? (
        <Suspense fallback={null}>
          <ToastList items={list} />
        </Suspense>
      ) : null}
    </section>
  );
}
