import { useEffect, useMemo, useRef, useState } from 'react';
import { PREVIEW_MIN_HEIGHT_PX } from '../../../shared/plans.ts';
import { DARK_CANVAS, FORCED_DARK_CANVAS, LIGHT_CANVAS } from '../../../shared/preview/canvas.ts';
import { emailDocument, needsTransforms } from './email-document.ts';
import { showInFrame } from './frame-behaviour.ts';
import type { PreviewMode } from './preview-view.ts';
import type { ViewTransforms } from './view-transforms.ts';

/**
 * The frame that shows user HTML (docs/architecture.md §1.7,
 * docs/decisions/0045-preview-frame-same-origin-without-scripts.md). Used only by EmailPreview.
 *
 * - `sandbox="allow-same-origin"` and nothing else: no script, no popup, no form, no top
 *   navigation; this page reads the layout to size the frame and opens clicked links itself.
 * - Its viewport is exactly `width` CSS pixels (no border or padding); when the room is narrower
 *   the frame is scaled down with a transform, so the email never reflows.
 * - It is as tall as the email (at least the spec's 800 px): no inner scrollbar; unless the email's
 *   height depends on the frame's (viewport units), which scrolls in an 800 px window
 *   (frame-behaviour.ts).
 * - Its `color-scheme` decides the email's `prefers-color-scheme` in Chromium, whatever the app's
 *   theme or the system's: light for Light and Dark (forced), dark for Dark.
 */

const CANVAS: Record<PreviewMode, string> = {
  light: LIGHT_CANVAS,
  dark: DARK_CANVAS,
  'forced-dark': FORCED_DARK_CANVAS,
};

let loadedTransforms: ViewTransforms | null = null;

/** The Forced dark and Images off transforms, loaded the first time a view needs them. */
function useViewTransforms(needed: boolean): ViewTransforms | null {
  const [transforms, setTransforms] = useState(loadedTransforms);
  useEffect(() => {
    if (!needed || transforms) return;
    let live = true;
    import('./view-transforms.ts')
      .then((m) => {
        loadedTransforms = m.viewTransforms;
        if (live) setTransforms(m.viewTransforms);
      })
      .catch(() => undefined); // a failed chunk load keeps the view on show
    return () => {
      live = false;
    };
  }, [needed, transforms]);
  return transforms;
}

export interface EmailFrameProps {
  html: string;
  /** Accessible name of the frame, e.g. "Email preview: {subject}". */
  title: string;
  /** The frame's viewport width in CSS pixels. */
  width: number;
  /** Visual scale (≤ 1) when the room is narrower than `width`. */
  scale: number;
  mode: PreviewMode;
  images: boolean;
  /** Reports the frame's height in CSS pixels of the frame, once measured. */
  onHeight?: (height: number) => void;
}

/** The frame document's type: HTML in UTF-8, whatever charset the email declares. */
const FRAME_DOCUMENT_TYPE = 'text/html;charset=utf-8';

function openLink(url: string): void {
  window.open(url, '_blank', 'noopener,noreferrer');
}

export function EmailFrame({ html, title, width, scale, mode, images, onHeight }: EmailFrameProps) {
  const transforms = useViewTransforms(needsTransforms({ mode, images }));
  const latest = useMemo(
    () =>
      needsTransforms({ mode, images }) && !transforms
        ? null
        : emailDocument(html, { mode, images }, transforms ?? undefined),
    [html, mode, images, transforms],
  );
  // Until the transforms arrive (a few milliseconds, once) the previous view stays on show.
  const [shown, setShown] = useState(latest ?? '');
  if (latest !== null && latest !== shown) setShown(latest);
  const doc = latest ?? shown;
  const ref = useRef<HTMLIFrameElement>(null);
  const [contentHeight, setContentHeight] = useState(0);
  const height = Math.max(PREVIEW_MIN_HEIGHT_PX, contentHeight);
  const reportHeight = useRef(onHeight);
  reportHeight.current = onHeight;

  useEffect(() => {
    const iframe = ref.current;
    if (!iframe) return;
    // A blob: document rather than srcdoc: Chromium sends a srcdoc document's origin as the
    // Referer of its CSS images, whatever its referrer policy (docs/decisions/0045-preview-frame-same-origin-without-scripts.md).
    // The Blob stores the string as UTF-8, and the message is sent as UTF-8 (src/server/mail/message.ts):
    // the type's charset says so, and outranks the email's own <meta charset>, which would otherwise
    // decode those bytes as, say, windows-1252 (docs/decisions/0119-preview-frame-utf-8-and-unshadowed.md).
    const url = URL.createObjectURL(new Blob([doc], { type: FRAME_DOCUMENT_TYPE }));
    const stop = showInFrame(iframe, url, { onHeight: setContentHeight, openLink });
    return () => {
      stop();
      URL.revokeObjectURL(url);
    };
  }, [doc]);
  useEffect(() => reportHeight.current?.(height), [height]);

  return (
    <div className="relative overflow-hidden" style={{ width: width * scale, height: height * scale }}>
      <iframe
        ref={ref}
        sandbox="allow-same-origin"
        referrerPolicy="no-referrer"
        title={title}
        data-testid="email-frame"
        data-mode={mode}
        className="absolute top-0 left-0 block border-0"
        style={{
          width,
          height,
          transform: scale === 1 ? undefined : `scale(${scale})`,
          transformOrigin: '0 0',
          colorScheme: mode === 'dark' ? 'dark' : 'light',
          // Emails are designed on white; the dark modes show a mail client's dark canvas.
          backgroundColor: CANVAS[mode],
        }}
      />
    </div>
  );
}
