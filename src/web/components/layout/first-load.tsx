import { useEffect, useState } from 'react';
import { Spinner } from '../ui/spinner.tsx';

/** How long the first page may take before a spinner says something is happening. */
const SHOW_AFTER_MS = 300;

/**
 * The root route's HydrateFallback: what shows while the first page's code loads. Blank at first
 * (a fast load shows no flash), then a spinner on a slow connection.
 */
export function FirstLoad() {
  const [slow, setSlow] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setSlow(true), SHOW_AFTER_MS);
    return () => clearTimeout(timer);
  }, []);
  return (
    <main id="main" className="flex min-h-dvh items-center justify-center p-6" aria-busy="true">
      {slow ? (
        <Spinner className="size-8 text-brand-600 dark:text-brand-400" label="Loading Proofmail" />
      ) : null}
    </main>
  );
}
