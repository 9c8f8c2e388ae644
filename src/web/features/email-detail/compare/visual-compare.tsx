import { useCallback, useRef, useState, type ReactNode } from 'react';
import { EmailPreview } from '../../../components/email-preview/email-preview.tsx';
import { PreviewToolbar, viewNote } from '../../../components/email-preview/preview-toolbar.tsx';
import { usePreviewView } from '../../../components/email-preview/use-preview-view.ts';
import { PREVIEW_MIN_HEIGHT_PX } from '../../../../shared/plans.ts';

export type VisualLayout = 'split' | 'swipe';

interface Frame {
  width: number;
  scale: number;
  height: number;
}

export interface VisualSide {
  html: string;
  /** e.g. "Version 2". */
  caption: ReactNode;
  /** Accessible name of the frame. */
  title: string;
}

/** The frames' sizes, as the previews report them; a new object only when a size changed. */
function useFrames() {
  const [frames, setFrames] = useState<{ left: Frame | null; right: Frame | null }>({
    left: null,
    right: null,
  });
  const report = useCallback(
    (side: 'left' | 'right') => (frame: Frame) =>
      setFrames((prev) => {
        const was = prev[side];
        if (was && was.width === frame.width && was.scale === frame.scale && was.height === frame.height)
          return prev;
        return { ...prev, [side]: frame };
      }),
    [],
  );
  return { frames, report };
}

/**
 * Two renders of the email side by side, scrolling together; or one over the other with a
 * slider that swipes between them. Both use EmailPreview (the one way to show user HTML,
 * docs/architecture.md §1.7) under one toolbar: width, colours and images come from the URL, so
 * both always show the same view.
 */
export function VisualCompare({
  left,
  right,
  layout,
}: {
  left: VisualSide;
  right: VisualSide;
  layout: VisualLayout;
}) {
  const [view, setView] = usePreviewView();
  const { frames, report } = useFrames();
  // Stable per side, so a preview's effect runs only when its size changes.
  const [reportLeft] = useState(() => report('left'));
  const [reportRight] = useState(() => report('right'));
  const frame = frames.left ?? frames.right;
  const height = Math.max(frames.left?.height ?? 0, frames.right?.height ?? 0) || PREVIEW_MIN_HEIGHT_PX;
  const note = viewNote(view);

  return (
    <div className="space-y-3">
      <div className="space-y-2">
        <PreviewToolbar
          view={view}
          width={frame?.width ?? 0}
          scale={frame?.scale ?? 1}
          height={height}
          onChange={(patch) => setView(patch)}
        />
        {note ? <p className="text-xs text-slate-500 dark:text-slate-400">{note}</p> : null}
      </div>
      {layout === 'split' ? (
        <SideBySide left={left} right={right} onLeft={reportLeft} onRight={reportRight} />
      ) : (
        <Swipe left={left} right={right} onLeft={reportLeft} onRight={reportRight} />
      )}
    </div>
  );
}

interface LayoutProps {
  left: VisualSide;
  right: VisualSide;
  onLeft: (frame: Frame) => void;
  onRight: (frame: Frame) => void;
}

const caption = 'truncate text-xs font-medium text-slate-600 dark:text-slate-300';

/** Two scroll boxes that follow each other: scrolling one scrolls the other to the same place. */
function SideBySide({ left, right, onLeft, onRight }: LayoutProps) {
  const boxes = useRef<(HTMLDivElement | null)[]>([null, null]);
  const following = useRef<number | null>(null);
  const onScroll = (from: number) => {
    // The other box's own scroll event, caused by this one: not echoed back.
    if (following.current === from) {
      following.current = null;
      return;
    }
    const source = boxes.current[from];
    const target = boxes.current[1 - from];
    if (!source || !target) return;
    if (target.scrollTop === source.scrollTop && target.scrollLeft === source.scrollLeft) return;
    following.current = 1 - from;
    target.scrollTop = source.scrollTop;
    target.scrollLeft = source.scrollLeft;
  };
  const sides = [
    { side: left, report: onLeft },
    { side: right, report: onRight },
  ];
  return (
    <div className="grid grid-cols-2 gap-3 sm:gap-4" data-testid="visual-split">
      {sides.map(({ side, report }, i) => (
        <div key={i} className="min-w-0 space-y-2">
          <p className={caption}>{side.caption}</p>
          <div
            ref={(el) => {
              boxes.current[i] = el;
            }}
            onScroll={() => onScroll(i)}
            data-testid={i === 0 ? 'visual-left' : 'visual-right'}
            className="h-[70vh] min-h-80 overflow-auto rounded-xl bg-slate-100 py-3 ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-800"
          >
            <EmailPreview html={side.html} title={side.title} toolbar={false} onFrame={report} />
          </div>
        </div>
      ))}
    </div>
  );
}

/** The right version over the left one, shown from the slider's position to the right edge. */
function Swipe({ left, right, onLeft, onRight }: LayoutProps) {
  const [position, setPosition] = useState(50);
  return (
    <div className="space-y-3" data-testid="visual-swipe">
      <div className="flex items-center gap-3">
        <span className={caption}>{left.caption}</span>
        <input
          type="range"
          min={0}
          max={100}
          value={position}
          onChange={(e) => setPosition(Number(e.target.value))}
          aria-label="Swipe position: the left version shows to the left of it, the right version to the right"
          className="h-2 min-w-0 flex-1 cursor-ew-resize accent-brand-600"
        />
        <span className={caption}>{right.caption}</span>
      </div>
      <div className="relative grid overflow-hidden rounded-xl bg-slate-100 py-3 ring-1 ring-slate-200 dark:bg-slate-900 dark:ring-slate-800">
        <div className="[grid-area:1/1]">
          <EmailPreview html={left.html} title={left.title} toolbar={false} onFrame={onLeft} />
        </div>
        <div
          className="[grid-area:1/1]"
          style={{ clipPath: `inset(0 0 0 ${position}%)` }}
          data-testid="swipe-top"
        >
          <EmailPreview html={right.html} title={right.title} toolbar={false} onFrame={onRight} />
        </div>
        <div
          aria-hidden="true"
          className="pointer-events-none absolute inset-y-0 w-0.5 -translate-x-1/2 bg-brand-600 shadow-[0_0_0_1px_rgba(255,255,255,0.6)]"
          style={{ left: `${position}%` }}
        />
      </div>
    </div>
  );
}
