import { Download, FileImage, FileText, FileType, Mail } from 'lucide-react';
import { RENDER_MESSAGES, RENDER_MODES } from '../../../shared/contract/render.ts';
import { defaultWidth } from '../../components/email-preview/preview-view.ts';
import { usePreviewView } from '../../components/email-preview/use-preview-view.ts';
import {
  DropdownMenu,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
} from '../../components/ui/dropdown-menu.tsx';
import { toast } from '../../components/ui/toast.tsx';
import { apiDownload, errorMessage } from '../../lib/api.ts';
import { usePublicConfig } from '../../lib/public-config.ts';
import { saveFile } from './save-file.ts';

const MODE_LABEL = { light: 'Light', dark: 'Dark' } as const;

/**
 * What a PNG or PDF export left out, from the renderer's headers (src/server/features/email/export.routes.ts):
 * images that did not load, content wider than the export, an email taller than an export can be.
 * None for the other files, which carry no such headers.
 */
function missingFromRender(headers: Headers, width: number): string[] {
  const count = (name: string) => Number(headers.get(name) ?? '0') || 0;
  const notes: string[] = [];
  const images = count('X-Render-Images-Failed');
  if (images > 0)
    notes.push(
      `${images} image${images === 1 ? '' : 's'} did not load and ${images === 1 ? 'is' : 'are'} missing.`,
    );
  const contentWidth = count('X-Render-Content-Width');
  if (contentWidth > width)
    notes.push(
      `The email is ${contentWidth.toLocaleString('en-US')} px wide: the export shows its first ${width} px.`,
    );
  if (headers.get('X-Render-Truncated') === 'true')
    notes.push(
      `The email is taller than an export can be: it is cut at ${count('X-Render-Height').toLocaleString('en-US')} px.`,
    );
  return notes;
}

/**
 * Export of the email as sent (GET /api/email/{id}/export.*): PNG and PDF rendered at the width and
 * in the mode the preview shows (its toolbar chooses them; `previewWidth` is the width the detail
 * page's preview last reported), always with the email's images, and the .html and .eml files,
 * the same bytes as the Download buttons of the HTML and Raw tabs.
 */
export function ExportMenu({ emailId, previewWidth }: { emailId: string; previewWidth: number | null }) {
  const [view] = usePreviewView();
  const config = usePublicConfig();
  const rendererOn = config.data?.renderer ?? false;
  // Until a width is chosen the preview shows the default for its own room (narrower than the
  // window: the page's margins), and reports it; the export takes that width. Only before the
  // preview has reported one is the window the guess.
  const width = view.width ?? previewWidth ?? defaultWidth(window.innerWidth);
  const mode = RENDER_MODES.find((m) => m === view.mode);

  const download = async (file: string, name: string) => {
    try {
      const { blob, headers } = await apiDownload(`/api/email/${emailId}/${file}`);
      saveFile(blob, name);
      const missing = missingFromRender(headers, width);
      if (missing.length > 0) toast.info('Not everything is in the export', missing.join(' '));
    } catch (err) {
      toast.error(errorMessage(err));
    }
  };
  const rendered = (format: 'png' | 'pdf') =>
    void download(
      `export.${format}?width=${width}&mode=${mode}`,
      `email-${emailId}-${width}-${mode}.${format}`,
    );

  // The renderer always loads the email's images (its API has no Images Off), so with images
  // off in the preview the note says the export differs there rather than "as in the preview".
  const imagesDiffer = rendererOn && mode !== undefined && !view.images;
  const note = !rendererOn
    ? RENDER_MESSAGES.unavailable
    : !mode
      ? 'Forced dark is an approximation; choose Light or Dark in the preview to export an image.'
      : `${width} px, ${MODE_LABEL[mode]}, ${imagesDiffer ? 'with images' : 'as in the preview'}`;

  return (
    <DropdownMenu
      trigger={
        <>
          <Download aria-hidden="true" />
          Export
        </>
      }
      triggerVariant="outline"
      triggerClassName="self-start"
    >
      <DropdownMenuLabel className="whitespace-normal">
        <span data-testid="export-note">{note}</span>
        {imagesDiffer ? (
          <span data-testid="export-images-note" className="mt-1 block">
            Images Off applies to the preview only.
          </span>
        ) : null}
      </DropdownMenuLabel>
      <DropdownMenuItem icon={<FileImage />} disabled={!rendererOn || !mode} onSelect={() => rendered('png')}>
        Download PNG
      </DropdownMenuItem>
      <DropdownMenuItem icon={<FileType />} disabled={!rendererOn || !mode} onSelect={() => rendered('pdf')}>
        Download PDF
      </DropdownMenuItem>
      <DropdownMenuSeparator />
      <DropdownMenuItem
        icon={<FileText />}
        onSelect={() => void download('export.html', `email-${emailId}.html`)}
      >
        Download .html
      </DropdownMenuItem>
      <DropdownMenuItem icon={<Mail />} onSelect={() => void download('export.eml', `email-${emailId}.eml`)}>
        Download .eml
      </DropdownMenuItem>
    </DropdownMenu>
  );
}
