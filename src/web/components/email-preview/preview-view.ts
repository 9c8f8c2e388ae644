import { PREVIEW_WIDTH_PX } from '../../../shared/plans.ts';

/**
 * What the preview shows: the frame's width, its colour mode and whether images load
 * (docs/decisions/0046-preview-widths.md). The view lives in the URL (`?view=375&mode=dark`),
 * so a link opens the same view.
 */

/** light: as designed; dark: the email's own dark styles; forced-dark: a client's recolouring. */
export const PREVIEW_MODES = ['light', 'dark', 'forced-dark'] as const;
export type PreviewMode = (typeof PREVIEW_MODES)[number];

export interface PreviewView {
  /** The frame's viewport width in CSS pixels; null until chosen (see defaultWidth). */
  width: number | null;
  mode: PreviewMode;
  images: boolean;
}

export interface WidthPreset {
  /** How the preset appears in the URL. */
  id: string;
  label: string;
  width: number;
}

/** Desktop is a reading pane wider than the common 600–640 px breakpoints. */
export const DESKTOP_WIDTH = 800;
export const WIDTH_PRESETS: readonly WidthPreset[] = [
  { id: 'desktop', label: 'Desktop', width: DESKTOP_WIDTH },
  { id: String(PREVIEW_WIDTH_PX), label: String(PREVIEW_WIDTH_PX), width: PREVIEW_WIDTH_PX },
  { id: '375', label: 'Mobile', width: 375 },
  { id: '320', label: 'Small', width: 320 },
];
export const MIN_WIDTH = 240;
export const MAX_WIDTH = 1600;

export const clampWidth = (width: number) => Math.round(Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, width)));

export function presetFor(width: number): WidthPreset | undefined {
  return WIDTH_PRESETS.find((p) => p.width === width);
}

/** Reads the view from a URL's query; anything unknown falls back to the default. */
export function parseView(params: URLSearchParams): PreviewView {
  const rawWidth = params.get('view');
  const preset = WIDTH_PRESETS.find((p) => p.id === rawWidth);
  const number = rawWidth && /^\d{1,4}$/.test(rawWidth) ? clampWidth(Number(rawWidth)) : null;
  const rawMode = params.get('mode');
  return {
    width: preset ? preset.width : number,
    mode: PREVIEW_MODES.find((m) => m === rawMode) ?? 'light',
    images: params.get('images') !== 'off',
  };
}

/** Writes the view into `params` (defaults are left out), keeping every other parameter. */
export function writeView(params: URLSearchParams, view: PreviewView): URLSearchParams {
  const next = new URLSearchParams(params);
  if (view.width === null) next.delete('view');
  else next.set('view', presetFor(view.width)?.id ?? String(view.width));
  if (view.mode === 'light') next.delete('mode');
  else next.set('mode', view.mode);
  if (view.images) next.delete('images');
  else next.set('images', 'off');
  return next;
}

/** Wider than any phone held upright (the widest are about 430 CSS pixels). */
const WIDER_THAN_A_PHONE = 480;

/**
 * The width shown before the user picks one, from the room there is: Desktop (scaled down if
 * needed) wherever the room is wider than a phone, so a desktop layout never passes for its
 * mobile one; on a phone the widest phone preset that fits, so the email looks as it will there.
 */
export function defaultWidth(available: number): number {
  if (available >= WIDER_THAN_A_PHONE) return DESKTOP_WIDTH;
  return available >= 375 ? 375 : 320;
}
