import { diffSources } from './source-diff.ts';

/**
 * Computes a source diff off the page's main thread (docs/decisions/0077-source-diff-in-a-browser-worker.md),
 * so two long versions never freeze scrolling or typing while jsdiff works.
 */
const scope = self as unknown as {
  onmessage: ((event: MessageEvent<{ id: number; left: string; right: string }>) => void) | null;
  postMessage: (message: unknown) => void;
};

scope.onmessage = (event) => {
  const { id, left, right } = event.data;
  scope.postMessage({ id, diff: diffSources(left, right) });
};
