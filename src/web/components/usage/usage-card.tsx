import { BarChart3 } from 'lucide-react';
import { Card, CardContent, CardDescription, CardHeader, CardTitle } from '../ui/card.tsx';
import { Skeleton } from '../ui/skeleton.tsx';
import { useUsage } from '../../lib/usage.ts';
import { UsageMeter } from './usage-meter.tsx';

/** Monthly usage with its bar and total sends, for /app/profile and /app/account (docs/spec.md §2, §4). */
export function UsageCard() {
  const usage = useUsage();
  return (
    <Card data-slot="usage">
      <CardHeader>
        <CardTitle as="h2" className="flex items-center gap-2">
          <BarChart3 aria-hidden="true" className="size-5 text-slate-500" />
          Usage
        </CardTitle>
        <CardDescription>Your sends this month and in total.</CardDescription>
      </CardHeader>
      <CardContent>
        {usage.data ? (
          <UsageMeter usage={usage.data.usage} />
        ) : usage.isError ? (
          <p className="text-sm text-red-700 dark:text-red-400">
            Failed to load usage. Reload the page to try again.
          </p>
        ) : (
          <div className="space-y-2" aria-hidden="true">
            <Skeleton className="block h-4 w-40" />
            <Skeleton className="block h-2 w-full" />
          </div>
        )}
      </CardContent>
    </Card>
  );
}
