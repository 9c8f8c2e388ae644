import type { Clock } from '../../clock.ts';
import type { Db } from '../../db/database.ts';
import { notFound } from '../../http/errors.ts';
import type { TransformPool } from '../../prepare/transform-pool.ts';
import { PrepareError } from '../../prepare/prepare-error.ts';
import { AppError } from '../../http/errors.ts';
import { unavailable, type Renderer } from '../../render/renderer.ts';
import type { RenderedPage } from '../../render/render-page.ts';
import type { PixelDiffResponse, RenderMode } from '../../../shared/contract/render.ts';
import { findSentHtml, findThumbnail, storeThumbnail } from './export.repo.ts';

/**
 * Exports of an email as sent and the pixel comparison of two (docs/architecture.md "The
 * renderer"). Only the stored HTML as sent (`emails.html`) is rendered: what is rendered is what
 * was sent.
 */

export interface ExportDeps {
  db: Db;
  clock: Clock;
  renderer: Renderer;
  transforms: TransformPool;
}

/** The HTML part as sent of one of the user's emails; 404 for a missing, deleted or another user's. */
export async function sentHtml(deps: { db: Db }, userId: string, id: string): Promise<string> {
  const row = await findSentHtml(deps.db, userId, id);
  if (!row) throw notFound('Email not found');
  return row.html;
}

/** Fails at once with 503 renderer_unavailable when no Chromium was found. */
export function requireRenderer(deps: { renderer: Renderer }): void {
  if (!deps.renderer.available) throw unavailable();
}

export function renderSent(
  deps: ExportDeps,
  userId: string,
  html: string,
  view: { width: number; mode: RenderMode; format: 'png' | 'pdf'; scale?: number; maxHeight?: number },
): Promise<RenderedPage> {
  return deps.renderer.render({ html, userId, ...view });
}

/** Thumbnails: 600 CSS pixels wide at half scale, the first 800 CSS pixels of the email. */
export const THUMBNAIL = { width: 600, scale: 0.5, maxHeight: 800 } as const;

/**
 * The top of one of the user's emails as a PNG (docs/decisions/0090-stored-thumbnails.md): the
 * stored one, else rendered once and stored. Ownership and the stored thumbnail are one read (404
 * for another user's email); `beforeRender` (the render limit) runs only when a render is needed,
 * so a stored thumbnail costs no render and takes nothing from the limit.
 */
export async function thumbnail(
  deps: ExportDeps,
  userId: string,
  id: string,
  mode: RenderMode,
  beforeRender: () => Promise<void>,
): Promise<Buffer> {
  const found = await findThumbnail(deps.db, userId, id, mode);
  if (!found) throw notFound('Email not found');
  if (found.png) return found.png;
  requireRenderer(deps);
  await beforeRender();
  const { body } = await renderSent(deps, userId, found.html, { ...THUMBNAIL, mode, format: 'png' });
  await storeThumbnail(deps.db, id, mode, body);
  return body;
}

export async function comparePixels(
  deps: ExportDeps,
  userId: string,
  [leftHtml, rightHtml]: [string, string],
  view: { width: number; mode: RenderMode },
): Promise<PixelDiffResponse> {
  const [left, right] = await Promise.all(
    [leftHtml, rightHtml].map((html) => deps.renderer.render({ html, userId, format: 'png', ...view })),
  );
  try {
    const diff = await deps.transforms.pixelDiff(left!.body, right!.body, userId);
    return {
      width: view.width,
      leftHeight: left!.height,
      rightHeight: right!.height,
      truncated: left!.truncated || right!.truncated,
      regions: diff.regions,
      image: `data:image/png;base64,${Buffer.from(diff.image).toString('base64')}`,
    };
  } catch (err) {
    if (!(err instanceof PrepareError)) throw err;
    if (err.code === 'busy') throw new AppError(503, err.message, 'busy', 5);
    if (err.code === 'too_many_jobs') throw new AppError(429, err.message, 'too_many_jobs', 5);
    if (err.code === 'processing_timeout') throw new AppError(422, err.message, 'diff_timeout');
    throw new AppError(503, err.message, 'diff_failed', 5);
  }
}
