import { CircleAlert } from 'lucide-react';
import { useEffect, useState } from 'react';
import { Button } from '../../components/ui/button.tsx';
import { Card, CardContent } from '../../components/ui/card.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { errorMessage } from '../../lib/api.ts';

/**
 * A page whose data did not load: the in-page message (docs/spec.md §8) with a retry, and a toast once
 * per failure.
 */
export function LoadError({
  message,
  toastTitle,
  error,
  onRetry,
  retrying,
}: {
  message: string;
  toastTitle: string;
  error: unknown;
  onRetry: () => void;
  retrying: boolean;
}) {
  useEffect(() => {
    toast.error(toastTitle, errorMessage(error));
  }, [toastTitle, error]);
  return (
    <Card>
      <CardContent className="flex flex-col items-center gap-4 py-10 text-center">
        <span className="flex size-12 items-center justify-center rounded-full bg-red-100 text-red-700 dark:bg-red-950/70 dark:text-red-400">
          <CircleAlert aria-hidden="true" className="size-6" />
        </span>
        <div role="alert" className="space-y-1">
          <p className="font-semibold text-slate-900 dark:text-white">{message}</p>
          <p className="text-sm text-slate-600 dark:text-slate-400">{errorMessage(error)}</p>
        </div>
        <Button variant="outline" busy={retrying} onClick={onRetry}>
          Try Again
        </Button>
      </CardContent>
    </Card>
  );
}

/** What useLoadFailure reads of a query (TanStack Query's result). */
interface LoadingQuery {
  isError: boolean;
  error: unknown;
  refetch: () => Promise<unknown>;
}

/**
 * The failure a page shows with LoadError, and its Try Again. The failure is kept while the retry
 * runs: TanStack Query puts a query that never had data back to pending when it is fetched again,
 * so `isError` turned false at once, the page flashed its half-loaded content, and the button went
 * away with the keyboard focus on it, to come back when the retry failed.
 */
export function useLoadFailure(queries: LoadingQuery[]): {
  error: unknown;
  failed: boolean;
  retrying: boolean;
  retry: () => void;
} {
  const [held, setHeld] = useState<{ error: unknown } | null>(null);
  const failing = queries.filter((q) => q.isError);
  const retry = () => {
    setHeld({ error: failing[0]?.error ?? held?.error });
    void Promise.allSettled(failing.map((q) => q.refetch())).then(() => setHeld(null));
  };
  return {
    error: failing[0]?.error ?? held?.error,
    failed: failing.length > 0 || held !== null,
    retrying: held !== null,
    retry,
  };
}
