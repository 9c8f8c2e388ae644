import type { MouseEvent } from 'react';
import type { Review } from '../../../shared/contract/review.ts';
import { cx } from '../ui/cx.ts';
import { pinNumbers } from './review-list.tsx';

export interface PinPoint {
  x: number;
  y: number;
}

/** A picked point and the email's width (CSS px of the frame's viewport) it was picked at. */
export interface PickedPin extends PinPoint {
  width: number;
}

/**
 * Numbered markers over the preview, at fractions of the rendered email (EmailPreview's
 * `overlay`). In pin mode the layer takes one click and reports where, as fractions.
 */
export function PinMarkers({
  reviews,
  version,
  draft,
  picking = false,
  onPick,
}: {
  reviews: Review[];
  /** Only the pins of the version on show. */
  version: number;
  draft?: PinPoint | null;
  picking?: boolean;
  onPick?: (point: PickedPin) => void;
}) {
  const numbers = pinNumbers(reviews);
  const pick = (e: MouseEvent<HTMLDivElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return;
    const clamp = (n: number) => Math.min(1, Math.max(0, n));
    // The frame's layout width is the email's width, whatever scale it is shown at.
    const frame = e.currentTarget.parentElement?.querySelector('iframe');
    onPick?.({
      x: clamp((e.clientX - box.left) / box.width),
      y: clamp((e.clientY - box.top) / box.height),
      width: Math.round(frame?.clientWidth ?? box.width),
    });
  };
  const marker =
    'absolute flex size-7 -translate-x-1/2 -translate-y-1/2 items-center justify-center rounded-full text-xs font-semibold shadow-md ring-2 ring-white';
  return (
    <div
      className={cx('absolute inset-0', picking ? 'cursor-crosshair bg-brand-500/5' : 'pointer-events-none')}
      onClick={picking ? pick : undefined}
      data-testid="pin-layer"
    >
      {reviews
        .filter((r) => r.pin && r.version === version)
        .map((r) => (
          <span
            key={r.id}
            className={cx(marker, 'bg-brand-600 text-white')}
            style={{ left: `${r.pin!.x * 100}%`, top: `${r.pin!.y * 100}%` }}
            title={`${numbers.get(r.id)}: ${r.name}`}
            data-testid="pin-marker"
          >
            {numbers.get(r.id)}
          </span>
        ))}
      {draft ? (
        <span
          className={cx(marker, 'bg-amber-400 text-slate-900')}
          style={{ left: `${draft.x * 100}%`, top: `${draft.y * 100}%` }}
          data-testid="pin-draft"
          aria-label="Your pin"
        >
          +
        </span>
      ) : null}
    </div>
  );
}
