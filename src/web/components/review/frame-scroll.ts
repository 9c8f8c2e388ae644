import { useEffect, useState, type RefObject } from 'react';

/**
 * How the email is scrolled inside the preview frame, when it is: only an email sized by the
 * viewport (`100vh`, `height:100%`) is shown in a window that scrolls
 * (docs/decisions/0045-preview-frame-same-origin-without-scripts.md, amended 2026-11-28); every
 * other email is as tall as its frame. A pin is a fraction of the whole email, so over a scrolling
 * window a point of the frame is turned into one of the email, and back, with the scroll.
 */
export interface FrameScroll {
  /** The email's scrollTop, scrollHeight and the window's height, in CSS px of the frame. */
  top: number;
  height: number;
  view: number;
}

const clamp = (n: number) => Math.min(1, Math.max(0, n));

/** A point down the frame's window (0–1) as a fraction of the whole email. */
export function emailFraction(y: number, scroll: FrameScroll | null): number {
  return scroll ? clamp((y * scroll.view + scroll.top) / scroll.height) : y;
}

/** A fraction of the whole email as a point down the frame's window; null when scrolled out of it. */
export function windowFraction(y: number, scroll: FrameScroll | null): number | null {
  if (!scroll) return y;
  const at = (y * scroll.height - scroll.top) / scroll.view;
  return at < 0 || at > 1 ? null : at;
}

/** The scroll of the preview frame under `layer` (its sibling), kept current; null when it does not scroll. */
export function useFrameScroll(layer: RefObject<HTMLElement | null>): FrameScroll | null {
  const [scroll, setScroll] = useState<FrameScroll | null>(null);
  useEffect(() => {
    const frame = layer.current?.parentElement?.querySelector('iframe');
    if (!frame) return;
    let view: Window | null = null;
    const read = () => {
      const el = frame.contentDocument?.scrollingElement;
      const next =
        el && el.scrollHeight > el.clientHeight + 1
          ? { top: el.scrollTop, height: el.scrollHeight, view: el.clientHeight }
          : null;
      setScroll((was) =>
        was === next ||
        (was && next && was.top === next.top && was.height === next.height && was.view === next.view)
          ? was
          : next,
      );
    };
    // Each load of the frame is a new window to follow.
    const follow = () => {
      view?.removeEventListener('scroll', read);
      view = frame.contentWindow;
      view?.addEventListener('scroll', read, { passive: true });
      read();
    };
    follow();
    frame.addEventListener('load', follow);
    const resized = new ResizeObserver(read);
    resized.observe(frame);
    return () => {
      frame.removeEventListener('load', follow);
      view?.removeEventListener('scroll', read);
      resized.disconnect();
    };
  }, [layer]);
  return scroll;
}
