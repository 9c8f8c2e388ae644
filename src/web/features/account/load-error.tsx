import { CircleAlert } from 'lucide-react';
import { useEffect } from 'react';
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
