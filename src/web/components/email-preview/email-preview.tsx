import { useEffect, useRef, useState, type ReactNode } from 'react';
import { PREVIEW_MIN_HEIGHT_PX } from '../../../shared/plans.ts';
import { cx } from '../ui/cx.ts';
import { EmailFrame } from './email-frame.tsx';
import { defaultWidth } from './preview-view.ts';
import { PreviewToolbar, viewNote } from './preview-toolbar.tsx';
import { ResizeHandle } from './resize-handle.tsx';
import { useContentWidth } from './use-content-width.ts';
import { usePreviewView } from './use-preview-view.ts';

/**
 * The ONE way the app shows user HTML (docs/architecture.md §1.7): the composer, the email detail
 * and the public page /s/{slug} all use it. A toolbar picks the width (Desktop, 600, Mobile,
 * Small, or any width with the handle), the colours (Light, Dark with the email's own styles,
 * Forced dark) and images off; the view is kept in the URL. The frame is exactly the chosen
 * width, scaled down when the room is narrower, and as tall as the email
 * (docs/decisions/0046-preview-widths.md).
 */

export interface EmailPreviewProps {
  html: string;
  /** Accessible name of the frame, e.g. "Email preview: {subject}". */
  title: string;
  /** A mail client's header above the email (e.g. subject and recipients), as wide as the email. */
  header?: ReactNode;
  /** Shown in the toolbar next to the colour controls (e.g. the composer's "Updating…"). */
  status?: ReactNode;
  /**
   * Below 640 px the email runs edge to edge, without the card's ring (the public page). The
   * toolbar is then inset like the page's heading and review card: px-4 on a phone, and from
   * 640 px the stage's own gutter (sm:px-5), so all three line up.
   */
  bleed?: boolean;
  /**
   * False hides the toolbar, for a page that shows one toolbar over several previews (two
   * versions compared); the view still comes from the URL, so they all follow it.
   */
  toolbar?: boolean;
  /** Reports the frame's width, scale and height when they change (for that shared toolbar). */
  onFrame?: (frame: { width: number; scale: number; height: number }) => void;
  /** Laid over the email itself, exactly its box (e.g. review pins); position it absolutely. */
  overlay?: ReactNode;
  className?: string;
}

export function EmailPreview({
  html,
  title,
  header,
  status,
  bleed = false,
  toolbar = true,
  onFrame,
  overlay,
  className,
}: EmailPreviewProps) {
  const [view, setView] = usePreviewView();
  const stage = useRef<HTMLDivElement>(null);
  const available = useContentWidth(stage);
  // The default width is taken from the room there was at first, so resizing the window later
  // scales the email instead of switching it to another layout.
  const [firstAvailable, setFirstAvailable] = useState(0);
  if (available > 0 && firstAvailable === 0) setFirstAvailable(available);
  const [dragWidth, setDragWidth] = useState<number | null>(null);
  const [height, setHeight] = useState(PREVIEW_MIN_HEIGHT_PX);

  const width = dragWidth ?? view.width ?? defaultWidth(firstAvailable || available);
  const scale = available > 0 ? Math.min(1, available / width) : 1;
  const note = viewNote(view);
  useEffect(() => onFrame?.({ width, scale, height }), [onFrame, width, scale, height]);

  return (
    <section aria-label="Email preview" className={cx('space-y-3', className)}>
      {toolbar ? (
        <div className={cx('space-y-2', bleed && 'px-4 sm:px-5')}>
          <PreviewToolbar
            view={view}
            width={width}
            scale={scale}
            height={height}
            onChange={(patch) => setView(patch)}
            status={status}
          />
          {note ? (
            <p className="text-xs text-slate-500 dark:text-slate-400" data-testid="preview-note">
              {note}
            </p>
          ) : null}
        </div>
      ) : null}
      {/* The gutter on either side holds the resize handle; the frame is centred in it. */}
      <div ref={stage} className="sm:px-5">
        <div className="relative mx-auto" style={{ width: width * scale }}>
          <div
            className={cx(
              'overflow-hidden bg-white shadow-sm ring-1 ring-slate-200 dark:ring-slate-700',
              bleed ? 'sm:rounded-xl max-sm:shadow-none max-sm:ring-0' : 'rounded-xl',
            )}
          >
            {header}
            <div className="relative">
              <EmailFrame
                html={html}
                title={title}
                width={width}
                scale={scale}
                mode={view.mode}
                images={view.images}
                onHeight={setHeight}
              />
              {overlay}
            </div>
          </div>
          <ResizeHandle
            width={width}
            scale={scale}
            onResize={setDragWidth}
            onCommit={(next) => {
              setDragWidth(null);
              setView({ width: next });
            }}
            className="absolute inset-y-0 -right-5 hidden sm:flex"
          />
        </div>
      </div>
    </section>
  );
}
