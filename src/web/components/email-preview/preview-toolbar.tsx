import { Contrast, Image, ImageOff, Monitor, Moon, Smartphone, Sun } from 'lucide-react';
import type { ReactNode } from 'react';
import { cx, focusRing } from '../ui/cx.ts';
import { SegmentedControl, type SegmentedOption } from '../ui/segmented-control.tsx';
import { presetFor, WIDTH_PRESETS, type PreviewMode, type PreviewView } from './preview-view.ts';

const WIDTH_ICONS: Record<string, ReactNode> = {
  desktop: <Monitor aria-hidden="true" />,
  '375': <Smartphone aria-hidden="true" />,
};

/** The width choices, with their icons, names and titles (the Pixel Diff tab shows the same). */
export const WIDTH_OPTIONS: SegmentedOption<string>[] = WIDTH_PRESETS.map((p) => ({
  value: p.id,
  label: (
    <>
      {WIDTH_ICONS[p.id]}
      {p.label}
    </>
  ),
  ariaLabel: p.label === String(p.width) ? `${p.width} pixels` : `${p.label}, ${p.width} pixels`,
  title: `${p.label === String(p.width) ? '' : `${p.label}: `}${p.width} px wide`,
}));

export const MODE_OPTIONS: SegmentedOption<PreviewMode>[] = [
  {
    value: 'light',
    label: (
      <>
        <Sun aria-hidden="true" />
        Light
      </>
    ),
  },
  {
    value: 'dark',
    label: (
      <>
        <Moon aria-hidden="true" />
        Dark
      </>
    ),
    ariaLabel: "Dark, the email's own styles",
    title: "Dark: the email's own dark-mode styles",
  },
  {
    value: 'forced-dark',
    label: (
      <>
        <Contrast aria-hidden="true" />
        Forced Dark
      </>
    ),
    ariaLabel: 'Forced Dark, an approximation',
    title: 'Forced dark: an approximation of the Gmail app and Outlook.com',
  },
];

/** What the current mode shows, in a sentence under the toolbar (none for the plain Light view). */
export function viewNote(view: Pick<PreviewView, 'mode' | 'images'>): string | null {
  const parts: string[] = [];
  if (view.mode === 'dark') {
    parts.push(
      "Dark: the email's own prefers-color-scheme: dark styles apply, as in Apple Mail and Outlook for Mac.",
    );
  }
  if (view.mode === 'forced-dark') {
    parts.push(
      'Dark, forced: an approximation of how the Gmail app and Outlook.com recolour an email, not their exact output.',
    );
  }
  if (!view.images)
    parts.push('Images off: as Outlook shows emails by default, with alt text in their place.');
  return parts.length ? parts.join(' ') : null;
}

export interface PreviewToolbarProps {
  view: PreviewView;
  width: number;
  scale: number;
  height: number;
  onChange: (patch: Partial<PreviewView>) => void;
  /** Extra status at the end (e.g. "Updating…"). */
  status?: ReactNode;
}

export function PreviewToolbar({ view, width, scale, height, onChange, status }: PreviewToolbarProps) {
  const preset = presetFor(width);
  return (
    <div className="flex flex-wrap items-center gap-x-3 gap-y-2" role="toolbar" aria-label="Preview view">
      <SegmentedControl
        label="Width"
        options={WIDTH_OPTIONS}
        value={preset?.id ?? null}
        onChange={(id) => onChange({ width: WIDTH_PRESETS.find((p) => p.id === id)!.width })}
      />
      <p
        className="text-xs text-slate-600 tabular-nums max-sm:order-last dark:text-slate-400"
        data-testid="preview-size"
      >
        <span className="font-medium text-slate-700 dark:text-slate-200">{width}</span> ×{' '}
        {height.toLocaleString('en-US')} px
        {scale < 1 ? <span> · shown at {Math.round(scale * 100)}%</span> : null}
      </p>
      <div className="flex flex-wrap items-center gap-2 sm:ml-auto">
        {status}
        <SegmentedControl
          label="Colours"
          options={MODE_OPTIONS}
          value={view.mode}
          onChange={(mode) => onChange({ mode })}
        />
        <button
          type="button"
          aria-pressed={!view.images}
          onClick={() => onChange({ images: !view.images })}
          title={view.images ? 'Block images, as Outlook does by default' : 'Show images'}
          className={cx(
            'inline-flex h-8 items-center gap-1.5 rounded-lg border px-2.5 text-xs font-medium transition-colors [&_svg]:size-3.5',
            focusRing,
            view.images
              ? 'border-slate-200 text-slate-600 hover:bg-slate-50 hover:text-slate-900 dark:border-slate-700 dark:text-slate-300 dark:hover:bg-slate-800 dark:hover:text-white'
              : 'border-brand-300 bg-brand-50 text-brand-800 dark:border-brand-700 dark:bg-brand-950 dark:text-brand-200',
          )}
        >
          {view.images ? <Image aria-hidden="true" /> : <ImageOff aria-hidden="true" />}
          <span className="max-sm:sr-only">Images Off</span>
        </button>
      </div>
    </div>
  );
}
