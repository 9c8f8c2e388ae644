import { PixelDiff } from '../../../components/pixel-diff/pixel-diff.tsx';
import { WIDTH_PRESETS, presetFor } from '../../../components/email-preview/preview-view.ts';
import { MODE_OPTIONS, WIDTH_OPTIONS } from '../../../components/email-preview/preview-toolbar.tsx';
import { usePreviewView } from '../../../components/email-preview/use-preview-view.ts';
import { SegmentedControl, type SegmentedOption } from '../../../components/ui/segmented-control.tsx';
import type { RenderMode } from '../../../../shared/contract/render.ts';

/** The preview's own Light and Dark choices: the renderer has no forced dark. */
const RENDER_OPTIONS = MODE_OPTIONS.filter(
  (o): o is SegmentedOption<RenderMode> => o.value !== 'forced-dark',
);

/**
 * The Pixel Diff tab of the compare screen: both versions rendered alike by the server's renderer
 * (src/server/render/), rows aligned before comparing (docs/decisions/0081-row-aligned-pixel-diff.md).
 * Width and colours are the preview's (kept in the URL, shared with the Visual tab, laid out as
 * its toolbar is); the renderer knows Light and Dark, so forced dark compares in Dark. Until a
 * width is chosen it renders at `defaultWidth`, the compare page's default for both tabs.
 */
export function PixelTab({
  leftId,
  rightId,
  defaultWidth,
}: {
  leftId: string;
  rightId: string;
  defaultWidth: number;
}) {
  const [view, setView] = usePreviewView();
  const width = view.width ?? defaultWidth;
  const mode: RenderMode = view.mode === 'light' ? 'light' : 'dark';
  return (
    <div className="space-y-3">
      <div
        className="flex flex-wrap items-center gap-x-3 gap-y-2"
        role="toolbar"
        aria-label="Pixel diff view"
      >
        <SegmentedControl
          label="Width"
          options={WIDTH_OPTIONS}
          value={presetFor(width)?.id ?? null}
          onChange={(id) => setView({ width: WIDTH_PRESETS.find((p) => p.id === id)!.width })}
        />
        <p
          className="text-xs text-slate-500 tabular-nums max-sm:order-last dark:text-slate-400"
          data-testid="pixel-diff-width"
        >
          <span className="font-medium text-slate-700 dark:text-slate-200">{width}</span> px wide
        </p>
        <div className="flex flex-wrap items-center gap-2 sm:ml-auto">
          <SegmentedControl<RenderMode>
            label="Colours"
            options={RENDER_OPTIONS}
            value={mode}
            onChange={(m) => setView({ mode: m })}
          />
        </div>
      </div>
      <PixelDiff leftId={leftId} rightId={rightId} width={width} mode={mode} />
    </div>
  );
}
