import { GripVertical } from 'lucide-react';
import { useRef, type KeyboardEvent, type PointerEvent } from 'react';
import { cx, focusRing } from '../ui/cx.ts';
import { clampWidth, MAX_WIDTH, MIN_WIDTH } from './preview-view.ts';

export interface ResizeHandleProps {
  width: number;
  scale: number;
  /** While dragging: the width under the pointer (not yet committed). */
  onResize: (width: number) => void;
  /** The chosen width: at the end of a drag, or on a key press. */
  onCommit: (width: number) => void;
  className?: string;
}

/**
 * The handle on the frame's right edge: drag it to any width, or focus it and use the arrow keys
 * (10 px, 50 px with Shift; Home and End for the narrowest and widest). A window-splitter
 * separator in ARIA terms. The frame is centred, so the edge moves half as far as the width.
 */
export function ResizeHandle({ width, scale, onResize, onCommit, className }: ResizeHandleProps) {
  const drag = useRef<{ x: number; width: number; scale: number; last: number } | null>(null);

  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    if (e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { x: e.clientX, width, scale, last: width };
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d) return;
    d.last = clampWidth(d.width + (2 * (e.clientX - d.x)) / d.scale);
    onResize(d.last);
  };
  const onPointerEnd = () => {
    const d = drag.current;
    drag.current = null;
    if (d) onCommit(d.last);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? 50 : 10;
    const next =
      e.key === 'ArrowLeft' || e.key === 'ArrowDown'
        ? width - step
        : e.key === 'ArrowRight' || e.key === 'ArrowUp'
          ? width + step
          : e.key === 'Home'
            ? MIN_WIDTH
            : e.key === 'End'
              ? MAX_WIDTH
              : null;
    if (next === null) return;
    e.preventDefault();
    onCommit(clampWidth(next));
  };

  return (
    <div
      role="separator"
      aria-orientation="vertical"
      aria-label="Preview width"
      aria-valuenow={width}
      aria-valuemin={MIN_WIDTH}
      aria-valuemax={MAX_WIDTH}
      aria-valuetext={`${width} pixels`}
      tabIndex={0}
      title="Drag to resize (or use the arrow keys)"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerEnd}
      onPointerCancel={onPointerEnd}
      onKeyDown={onKeyDown}
      className={cx(
        'group flex w-4 cursor-ew-resize touch-none items-start justify-center rounded-md pt-24 select-none',
        focusRing,
        className,
      )}
    >
      <span className="flex h-12 w-2 items-center justify-center rounded-full bg-slate-200 text-slate-500 transition-colors group-hover:bg-brand-200 group-hover:text-brand-700 dark:bg-slate-700 dark:text-slate-300 dark:group-hover:bg-brand-900 dark:group-hover:text-brand-200">
        <GripVertical aria-hidden="true" className="size-3 shrink-0" />
      </span>
    </div>
  );
}
