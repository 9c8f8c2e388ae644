import { useEffect, useState } from 'react';
import { diffSources, type SourceDiff } from './source-diff.ts';

/**
 * The diff of two texts, computed in a Web Worker (diff.worker.ts); null while it runs. Where a
 * worker cannot start, it runs after a paint on the page itself, with the same time budgets.
 */
export function useSourceDiff(left: string, right: string): SourceDiff | null {
  const [result, setResult] = useState<{ left: string; right: string; diff: SourceDiff } | null>(null);
  useEffect(() => {
    let live = true;
    const done = (diff: SourceDiff) => {
      if (live) setResult({ left, right, diff });
    };
    let worker: Worker | null = null;
    try {
      worker = new Worker(new URL('./diff.worker.ts', import.meta.url), { type: 'module' });
    } catch {
      worker = null;
    }
    if (!worker) {
      const timer = window.setTimeout(() => done(diffSources(left, right)), 0);
      return () => {
        live = false;
        window.clearTimeout(timer);
      };
    }
    worker.onmessage = (event: MessageEvent<{ diff: SourceDiff }>) => done(event.data.diff);
    worker.onerror = () => done(diffSources(left, right));
    worker.postMessage({ id: 1, left, right });
    return () => {
      live = false;
      worker.terminate();
    };
  }, [left, right]);
  return result && result.left === left && result.right === right ? result.diff : null;
}
