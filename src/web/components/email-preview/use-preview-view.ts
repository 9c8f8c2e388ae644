import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { parseView, writeView, type PreviewView } from './preview-view.ts';

/**
 * The preview's view, kept in the page's URL (`?view=375&mode=dark&images=off`) so a link opens
 * the same view. A change replaces the history entry: Back leaves the page, not the view.
 */
export function usePreviewView(): [PreviewView, (patch: Partial<PreviewView>) => void] {
  const [params, setParams] = useSearchParams();
  const view = useMemo(() => parseView(params), [params]);
  const update = useCallback(
    (patch: Partial<PreviewView>) =>
      setParams((prev) => writeView(prev, { ...parseView(prev), ...patch }), {
        replace: true,
        preventScrollReset: true,
      }),
    [setParams],
  );
  return [view, update];
}
