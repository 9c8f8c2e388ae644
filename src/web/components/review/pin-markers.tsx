import {
  useEffect,
  useId,
  useLayoutEffect,
  useRef,
  useState,
  type KeyboardEvent,
  type MouseEvent,
} from 'react';
import type { Review } from '../../../shared/contract/review.ts';
import { cx, focusRing } from '../ui/cx.ts';
import { emailFraction, useFrameScroll, windowFraction } from './frame-scroll.ts';
import { pinNumbers, reviewElementId } from './pin-numbers.ts';

export interface PinPoint {
  x: number;
  y: number;
}

/** A picked point and the email's width (CSS px of the frame's viewport) it was picked at. */
export interface PickedPin extends PinPoint {
  width: number;
}

/** How far an arrow key moves the keyboard cursor, in CSS px on screen (with Shift: further). */
const STEP_PX = 10;
const BIG_STEP_PX = 50;

const clamp = (n: number) => Math.min(1, Math.max(0, n));

/**
 * Where the keyboard cursor starts: the middle of the part of the email in view. When little of
 * it is in view (the reader is at the review form, below the email), the email's top is brought
 * into view and the cursor starts in the middle of that first screenful.
 */
function startPoint(layer: HTMLElement): PinPoint | null {
  const box = layer.getBoundingClientRect();
  if (box.width === 0 || box.height === 0) return null;
  const top = Math.max(box.top, 0);
  const bottom = Math.min(box.bottom, window.innerHeight);
  if (bottom - top >= Math.min(box.height, window.innerHeight) / 2) {
    return { x: 0.5, y: ((top + bottom) / 2 - box.top) / box.height };
  }
  layer.scrollIntoView({ block: 'start', behavior: 'smooth' });
  return { x: 0.5, y: Math.min(box.height, window.innerHeight) / 2 / box.height };
}

/**
 * Takes the reader to the review a marker belongs to, and focuses it. The public page loads its
 * list only when the reader nears it (src/web/features/public-view/public-email-page.tsx): then
 * the page heads for the list first and the review is focused once it is there.
 */
function showReview(id: string) {
  const go = (el: HTMLElement) => {
    el.scrollIntoView({ block: 'center', behavior: 'smooth' });
    el.focus({ preventScroll: true });
  };
  const found = document.getElementById(reviewElementId(id));
  if (found) return go(found);
  document.getElementById('review-title')?.scrollIntoView({ block: 'start' });
  let frames = 0;
  const wait = () => {
    const el = document.getElementById(reviewElementId(id));
    if (el) go(el);
    else if (++frames < 300) requestAnimationFrame(wait);
  };
  requestAnimationFrame(wait);
}

/**
 * Numbered markers over the preview, at fractions of the rendered email (EmailPreview's
 * `overlay`). Each is a button named after its reviewer that leads to their review in the list
 * (ReviewList). In pin mode the layer takes one click and reports where, as fractions; or, without
 * a mouse, a focused cursor moves with the arrow keys, Enter places it and Escape cancels.
 */
export function PinMarkers({
  reviews,
  version,
  draft,
  picking = false,
  onPick,
  onCancel,
}: {
  reviews: Review[];
  /** Only the pins of the version on show. */
  version: number;
  draft?: PinPoint | null;
  picking?: boolean;
  onPick?: (point: PickedPin) => void;
  /** Escape in pin mode. */
  onCancel?: () => void;
}) {
  const numbers = pinNumbers(reviews);
  const layer = useRef<HTMLDivElement>(null);
  const cursorEl = useRef<HTMLDivElement>(null);
  const [cursor, setCursor] = useState<PinPoint | null>(null);
  const hintId = useId();
  // Points on the layer are of the frame's window; pins are of the whole email (frame-scroll.ts).
  const scroll = useFrameScroll(layer);

  // Pin mode starts with the cursor in the email, focused: the keyboard's way to place a pin.
  useLayoutEffect(() => {
    setCursor(picking && layer.current ? startPoint(layer.current) : null);
  }, [picking]);
  const shown = cursor !== null;
  useEffect(() => {
    if (shown) cursorEl.current?.focus({ preventScroll: true });
  }, [shown]);

  const place = (point: PinPoint) => {
    const box = layer.current?.getBoundingClientRect();
    // The frame's layout width is the email's width, whatever scale it is shown at.
    const frame = layer.current?.parentElement?.querySelector('iframe');
    onPick?.({
      x: clamp(point.x),
      y: emailFraction(clamp(point.y), scroll),
      width: Math.round(frame?.clientWidth ?? box?.width ?? 0),
    });
    // Back to the form below the email, to write what the pin is about.
    document.getElementById('review-comment')?.focus({ preventScroll: true });
    document.getElementById('review-title')?.scrollIntoView({ block: 'start', behavior: 'smooth' });
  };

  const pick = (e: MouseEvent<HTMLDivElement>) => {
    const box = e.currentTarget.getBoundingClientRect();
    if (box.width === 0 || box.height === 0) return;
    place({ x: (e.clientX - box.left) / box.width, y: (e.clientY - box.top) / box.height });
  };

  const onCursorKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (!cursor || !layer.current) return;
    if (e.key === 'Escape') {
      e.preventDefault();
      onCancel?.();
      return;
    }
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      place(cursor);
      return;
    }
    const step = e.shiftKey ? BIG_STEP_PX : STEP_PX;
    const [dx, dy] =
      e.key === 'ArrowLeft'
        ? [-step, 0]
        : e.key === 'ArrowRight'
          ? [step, 0]
          : e.key === 'ArrowUp'
            ? [0, -step]
            : e.key === 'ArrowDown'
              ? [0, step]
              : [0, 0];
    if (!dx && !dy) return;
    e.preventDefault();
    const box = layer.current.getBoundingClientRect();
    const next = { x: clamp(cursor.x + dx / box.width), y: clamp(cursor.y + dy / box.height) };
    setCursor(next);
    // Keep the cursor in view as it moves down or up a long email.
    const y = box.top + next.y * box.height;
    const margin = 48;
    if (y < margin) window.scrollBy(0, y - margin);
    else if (y > window.innerHeight - margin) window.scrollBy(0, y - window.innerHeight + margin);
  };

  const draftY = draft ? windowFraction(draft.y, scroll) : null;
  const marker =
    'absolute flex size-7 -translate-x-1/2 -translate-y-1/2 items-center justify-center rounded-full text-xs font-semibold shadow-md ring-2 ring-white';
  return (
    <div
      ref={layer}
      className={cx('absolute inset-0', picking ? 'cursor-crosshair bg-brand-500/5' : 'pointer-events-none')}
      onClick={picking ? pick : undefined}
      data-testid="pin-layer"
    >
      {picking ? (
        <p
          id={hintId}
          className="pointer-events-none sticky top-2 z-10 mx-auto mt-2 w-fit max-w-[calc(100%-1rem)] rounded-full bg-slate-900/90 px-3 py-1 text-center text-xs font-medium text-white shadow-md"
        >
          Click the email, or move with the arrow keys and press Enter. Escape cancels.
        </p>
      ) : null}
      {reviews
        .filter((r) => r.pin && r.version === version)
        .map((r) => {
          const y = windowFraction(r.pin!.y, scroll);
          // Scrolled out of the frame's window: no marker until it is back.
          if (y === null) return null;
          const pin = { x: r.pin!.x, y };
          const label = `Pin ${numbers.get(r.id)}: ${r.name}`;
          return (
            <button
              key={r.id}
              type="button"
              // Behind the layer while a pin is placed: a click there places the new pin.
              tabIndex={picking ? -1 : undefined}
              className={cx(
                marker,
                'group bg-brand-600 text-white',
                picking ? 'pointer-events-none' : 'pointer-events-auto cursor-pointer',
                focusRing,
              )}
              style={{ left: `${pin.x * 100}%`, top: `${pin.y * 100}%` }}
              aria-label={label}
              onClick={() => showReview(r.id)}
              data-testid="pin-marker"
            >
              {numbers.get(r.id)}
              {/* The reviewer's name on hover and on keyboard focus (a title shows on neither reliably). */}
              <span
                aria-hidden="true"
                className={cx(
                  'pointer-events-none absolute z-10 hidden w-max max-w-48 rounded-md bg-slate-900 px-2 py-1 text-left text-xs font-medium wrap-anywhere text-white shadow-lg group-hover:block group-focus-visible:block dark:bg-slate-700',
                  pin.y < 0.15 ? 'top-full mt-1.5' : 'bottom-full mb-1.5',
                  pin.x < 0.25 ? 'left-0' : pin.x > 0.75 ? 'right-0' : 'left-1/2 -translate-x-1/2',
                )}
              >
                {label}
              </span>
            </button>
          );
        })}
      {draft && draftY !== null ? (
        <span
          role="img"
          className={cx(marker, 'bg-amber-400 text-slate-900')}
          style={{ left: `${draft.x * 100}%`, top: `${draftY * 100}%` }}
          data-testid="pin-draft"
          aria-label="Your pin"
        >
          +
        </span>
      ) : null}
      {picking && cursor ? (
        <>
          <div
            ref={cursorEl}
            role="application"
            aria-label="Pin position"
            aria-describedby={hintId}
            tabIndex={0}
            onKeyDown={onCursorKey}
            className={cx(
              marker,
              'border-2 border-dashed border-amber-600 bg-amber-300/60 text-slate-900 outline-offset-4',
              focusRing,
            )}
            style={{ left: `${cursor.x * 100}%`, top: `${cursor.y * 100}%` }}
            data-testid="pin-cursor"
          >
            <span aria-hidden="true">+</span>
          </div>
          <span className="sr-only" aria-live="polite">
            {`${Math.round(cursor.x * 100)}% across, ${Math.round(cursor.y * 100)}% down`}
          </span>
        </>
      ) : null}
    </div>
  );
}
