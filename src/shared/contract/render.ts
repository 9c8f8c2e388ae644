import { z } from 'zod';
import { PREVIEW_WIDTH_PX } from '../plans.ts';

/**
 * The renderer's exports and the pixel comparison (docs/architecture.md "The renderer"):
 * `GET /api/email/{id}/export.png|pdf`, `GET /api/email/{id}/compare/{otherId}/pixels`.
 */

/** The preview's widths (docs/decisions/0046-preview-widths.md): any from 240 to 1600 CSS pixels. */
export const RENDER_MIN_WIDTH = 240;
export const RENDER_MAX_WIDTH = 1600;
export const RENDER_DEFAULT_WIDTH = PREVIEW_WIDTH_PX;
/** The preview's Light and Dark (the email's own dark styles). */
export const RENDER_MODES = ['light', 'dark'] as const;
export type RenderMode = (typeof RENDER_MODES)[number];

export const RENDER_MESSAGES = {
  width: `must be a whole number of pixels from ${RENDER_MIN_WIDTH} to ${RENDER_MAX_WIDTH}`,
  mode: 'must be light or dark',
  unavailable: 'Rendering needs Chromium; set CHROMIUM_PATH or install chromium (see README)',
} as const;

const width = z.coerce
  .number({ error: RENDER_MESSAGES.width })
  .int({ error: RENDER_MESSAGES.width })
  .min(RENDER_MIN_WIDTH, { error: RENDER_MESSAGES.width })
  .max(RENDER_MAX_WIDTH, { error: RENDER_MESSAGES.width })
  .default(RENDER_DEFAULT_WIDTH);
const mode = z.enum(RENDER_MODES, { error: RENDER_MESSAGES.mode }).default('light');

export const renderQuery = z.object({ width, mode });
export type RenderQuery = z.infer<typeof renderQuery>;
export const thumbnailQuery = z.object({ mode });

export const compareParams = z.strictObject({ id: z.string().max(100), otherId: z.string().max(100) });

export const pixelRegion = z.object({
  side: z.enum(['left', 'right', 'both']),
  top: z.number().int(),
  height: z.number().int(),
  left: z.number().int(),
  width: z.number().int(),
  leftTop: z.number().int().optional(),
});
export type PixelRegion = z.infer<typeof pixelRegion>;

export const pixelDiffResponse = z.object({
  width: z.number().int(),
  leftHeight: z.number().int(),
  rightHeight: z.number().int(),
  /** True when a render was cut at the renderer's page budget (its height in pixels). */
  truncated: z.boolean(),
  regions: z.array(pixelRegion),
  /** The right render with the regions marked, as a data:image/png;base64 URL. */
  image: z.string(),
});
export type PixelDiffResponse = z.infer<typeof pixelDiffResponse>;
