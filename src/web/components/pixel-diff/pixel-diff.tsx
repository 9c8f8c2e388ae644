import { useQuery } from '@tanstack/react-query';
import { useRef } from 'react';
import type { PixelDiffResponse, PixelRegion, RenderMode } from '../../../shared/contract/render.ts';
import { ApiError, api, errorMessage } from '../../lib/api.ts';
import { Spinner } from '../ui/spinner.tsx';

export interface PixelDiffProps {
  /** The earlier version (left), an email id of the signed-in user. */
  leftId: string;
  /** The later version (right). */
  rightId: string;
  /** Render width in CSS pixels (240–1600). */
  width: number;
  mode: RenderMode;
}

const SIDE_LABEL: Record<PixelRegion['side'], string> = {
  both: 'Changed',
  right: 'Added',
  left: 'Removed',
};

function describe(region: PixelRegion): string {
  const where = region.side === 'left' ? 'in the left version' : 'in the right version';
  return `${SIDE_LABEL[region.side]}: ${region.height} px tall at ${region.top} px ${where}`;
}

/**
 * The pixel diff of two versions (GET /api/email/{id}/compare/{otherId}/pixels): both rendered
 * alike by the server's renderer, rows aligned so an insertion marks only itself. Shows the right
 * version with the changes marked (red: changed, green: added, a red line: removed) and the list
 * of changed regions; a region scrolls the picture to it.
 */
export function PixelDiff({ leftId, rightId, width, mode }: PixelDiffProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const image = useRef<HTMLImageElement>(null);
  const query = useQuery({
    queryKey: ['pixel-diff', leftId, rightId, width, mode],
    queryFn: ({ signal }) =>
      api<PixelDiffResponse>(
        `/api/email/${encodeURIComponent(leftId)}/compare/${encodeURIComponent(rightId)}/pixels?width=${width}&mode=${mode}`,
        { signal },
      ),
    staleTime: Infinity,
    retry: false,
  });

  if (query.isPending) {
    return (
      <div
        role="status"
        data-testid="pixel-diff-loading"
        className="flex items-center gap-2 p-4 text-sm text-slate-600 dark:text-slate-300"
      >
        <Spinner />
        Rendering both versions…
      </div>
    );
  }
  if (query.isError) {
    const unavailable = query.error instanceof ApiError && query.error.code === 'renderer_unavailable';
    return (
      <div
        role="alert"
        data-testid={unavailable ? 'pixel-diff-unavailable' : 'pixel-diff-error'}
        className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-sm text-amber-900 dark:border-amber-700 dark:bg-amber-950 dark:text-amber-100"
      >
        {unavailable
          ? `The pixel diff is not available on this server. ${errorMessage(query.error)}`
          : errorMessage(query.error)}
      </div>
    );
  }

  const diff = query.data;
  const scrollTo = (region: PixelRegion) => {
    const img = image.current;
    const box = scroller.current;
    if (!img || !box) return;
    const scale = img.clientWidth / diff.width;
    // A removed region shows as a line in the right version, at the row where it was.
    box.scrollTo({ top: Math.max(0, region.top * scale - 24), behavior: 'smooth' });
  };

  return (
    <div className="flex flex-col gap-3 lg:flex-row" data-testid="pixel-diff">
      <div className="flex flex-col gap-2 lg:w-64 lg:shrink-0">
        <p
          className="text-sm font-medium text-slate-900 dark:text-slate-100"
          data-testid="pixel-diff-summary"
        >
          {diff.regions.length === 0
            ? 'No visible change'
            : `${diff.regions.length} changed ${diff.regions.length === 1 ? 'region' : 'regions'}`}
        </p>
        {diff.truncated ? (
          <p className="text-xs text-slate-500 dark:text-slate-400">
            Only the first 20,000 pixels were compared.
          </p>
        ) : null}
        <ul className="flex flex-col gap-1" data-testid="pixel-diff-regions">
          {diff.regions.map((region, i) => (
            <li key={i}>
              <button
                type="button"
                onClick={() => scrollTo(region)}
                className="w-full rounded-md px-2 py-1 text-left text-sm text-slate-700 hover:bg-slate-100 focus-visible:ring-2 focus-visible:ring-indigo-500 focus-visible:outline-none dark:text-slate-200 dark:hover:bg-slate-800"
              >
                <span
                  aria-hidden="true"
                  className={`mr-2 inline-block size-2.5 rounded-full ${region.side === 'right' ? 'bg-green-600' : 'bg-red-600'}`}
                />
                {describe(region)}
              </button>
            </li>
          ))}
        </ul>
      </div>
      <div
        ref={scroller}
        className="max-h-[75vh] min-w-0 flex-1 overflow-auto rounded-lg border border-slate-200 bg-white dark:border-slate-700"
      >
        <img
          ref={image}
          src={diff.image}
          alt={`The right version with ${diff.regions.length} changed regions marked`}
          className="block h-auto w-full"
          style={{ maxWidth: diff.width }}
          data-testid="pixel-diff-image"
        />
      </div>
    </div>
  );
}
