import { createHash } from 'node:crypto';
import { diffArrays } from 'diff';
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import { PREVIEW_MIN_HEIGHT_PX } from '../../shared/plans.ts';

/**
 * The pixel diff of two renders of the same width, with the rows aligned first
 * (docs/decisions/0081-row-aligned-pixel-diff.md): every pixel row is hashed, a Myers diff over the
 * row hashes pairs up the rows the two images share, and only the runs of rows between them are
 * compared pixel by pixel (pixelmatch, with its anti-aliasing tolerance). An inserted banner is then
 * a run of rows only the right image has, and everything it pushed down matches its old rows: the
 * banner is reported, nothing below it.
 *
 * A render is at least as tall as the preview's frame (PREVIEW_MIN_HEIGHT_PX, render-page.ts): below
 * a shorter email it is the frame's canvas, not the email. The rows at the bottom of such a render
 * that repeat its last row are left out of the alignment, so an email that grew or shrank within
 * the frame is not also reported as canvas removed or added; a canvas that changed colour is
 * still reported.
 *
 * CPU-heavy: it runs in the transform process pool (src/server/prepare/transform-pool.ts), never on
 * the event loop.
 */

export interface PixelRegion {
  /** left: rows only the left image has (removed); right: rows only the right has (added); both: changed pixels. */
  side: 'left' | 'right' | 'both';
  /** In the right image for `right` and `both`, in the left image for `left`. */
  top: number;
  height: number;
  left: number;
  width: number;
  /** For `both`: where the same rows start in the left image. */
  leftTop?: number;
}

export interface PixelDiffResult {
  width: number;
  leftHeight: number;
  rightHeight: number;
  regions: PixelRegion[];
  /** The right image with the regions marked (PNG). */
  image: Uint8Array;
}

export interface PixelDiffOptions {
  /** pixelmatch's colour tolerance (0 exact, 1 anything): 0.1 ignores anti-aliasing noise. */
  threshold?: number;
  /** Rows of the same side closer than this are one region. */
  mergeGap?: number;
}

interface Hunk {
  leftTop: number;
  leftRows: number;
  rightTop: number;
  rightRows: number;
}

/** More edited rows than this and the two images are simply different: no alignment is searched. */
const MAX_EDIT_ROWS = 4_000;

function rowHashes(png: PNG): string[] {
  const stride = png.width * 4;
  const hashes: string[] = [];
  for (let y = 0; y < png.height; y++) {
    hashes.push(
      createHash('sha1')
        .update(png.data.subarray(y * stride, (y + 1) * stride))
        .digest('base64'),
    );
  }
  return hashes;
}

/**
 * Where the frame's canvas starts in a render no taller than the frame: the first of the rows at
 * its bottom that repeat its last row. A taller render grew to the email: it has no canvas below it.
 */
function canvasStart(hashes: string[]): number {
  const height = hashes.length;
  if (height === 0 || height > PREVIEW_MIN_HEIGHT_PX) return height;
  const last = hashes[height - 1];
  let start = height - 1;
  while (start > 0 && hashes[start - 1] === last) start--;
  return start;
}

/** The runs of rows that are not shared, in order. */
function hunks(left: string[], right: string[]): Hunk[] {
  const changes = diffArrays(left, right, { maxEditLength: MAX_EDIT_ROWS }) ?? [
    { value: left, count: left.length, removed: true, added: false },
    { value: right, count: right.length, removed: false, added: true },
  ];
  const out: Hunk[] = [];
  let l = 0;
  let r = 0;
  let open: Hunk | undefined;
  for (const change of changes) {
    const count = change.value.length;
    if (!change.added && !change.removed) {
      if (open) out.push(open);
      open = undefined;
      l += count;
      r += count;
      continue;
    }
    open ??= { leftTop: l, leftRows: 0, rightTop: r, rightRows: 0 };
    if (change.removed) {
      open.leftRows += count;
      l += count;
    } else {
      open.rightRows += count;
      r += count;
    }
  }
  if (open) out.push(open);
  return out;
}

/** Common rows between two hunks that may still be one change. */
const BALANCE_GAP = 64;

/**
 * Joins runs of hunks that shift the rows one way and then back within a few rows (a reflowed
 * line: three rows taken out here, three blank rows put in a little below, which the row diff
 * may align either way): compared as one run, row for row, only the pixels that changed remain.
 * A run that does not balance out (an inserted banner) is left alone.
 */
function balance(list: Hunk[]): Hunk[] {
  const out: Hunk[] = [];
  for (let i = 0; i < list.length; i++) {
    const first = list[i]!;
    let shift = first.rightRows - first.leftRows;
    let end = i;
    if (shift !== 0) {
      for (let j = i + 1; j < list.length; j++) {
        const prev = list[j - 1]!;
        const next = list[j]!;
        if (next.leftTop - (prev.leftTop + prev.leftRows) > BALANCE_GAP) break;
        shift += next.rightRows - next.leftRows;
        if (shift === 0) {
          end = j;
          break;
        }
      }
    }
    const last = list[end]!;
    out.push({
      leftTop: first.leftTop,
      leftRows: last.leftTop + last.leftRows - first.leftTop,
      rightTop: first.rightTop,
      rightRows: last.rightTop + last.rightRows - first.rightTop,
    });
    i = end;
  }
  return out;
}

/** The box of the pixels that differ between the paired rows of a hunk, or null when none do. */
function changedBox(
  left: PNG,
  right: PNG,
  hunk: Hunk,
  rows: number,
  threshold: number,
): { top: number; height: number; left: number; width: number } | null {
  const stride = left.width * 4;
  const a = left.data.subarray(hunk.leftTop * stride, (hunk.leftTop + rows) * stride);
  const b = right.data.subarray(hunk.rightTop * stride, (hunk.rightTop + rows) * stride);
  const mask = new Uint8Array(a.length);
  const count = pixelmatch(a, b, mask, left.width, rows, { threshold, diffMask: true });
  if (count === 0) return null;
  let minX = left.width;
  let maxX = -1;
  let minY = rows;
  let maxY = -1;
  for (let y = 0; y < rows; y++) {
    for (let x = 0; x < left.width; x++) {
      if (mask[(y * left.width + x) * 4 + 3] === 0) continue;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  if (maxX < 0) return null;
  return { top: minY, height: maxY - minY + 1, left: minX, width: maxX - minX + 1 };
}

/** Regions of one side that touch or nearly touch become one. */
function merge(regions: PixelRegion[], gap: number): PixelRegion[] {
  const out: PixelRegion[] = [];
  for (const region of regions) {
    const last = out.at(-1);
    if (last && last.side === region.side && region.top - (last.top + last.height) <= gap) {
      const right = Math.max(last.left + last.width, region.left + region.width);
      last.left = Math.min(last.left, region.left);
      last.width = right - last.left;
      last.height = region.top + region.height - last.top;
      continue;
    }
    out.push({ ...region });
  }
  return out;
}

function blend(data: Buffer, pos: number, [r, g, b]: readonly number[], amount: number): void {
  data[pos] = Math.round(data[pos]! * (1 - amount) + r! * amount);
  data[pos + 1] = Math.round(data[pos + 1]! * (1 - amount) + g! * amount);
  data[pos + 2] = Math.round(data[pos + 2]! * (1 - amount) + b! * amount);
  data[pos + 3] = 255;
}

const CHANGED = [230, 40, 40] as const;
const ADDED = [30, 170, 80] as const;

/** The right image with changed boxes tinted red, added rows tinted green, removals as a red line. */
function highlight(right: PNG, regions: PixelRegion[], removedAt: number[]): Uint8Array {
  const out = new PNG({ width: right.width, height: right.height });
  right.data.copy(out.data);
  const w = right.width;
  const tint = (
    top: number,
    height: number,
    left: number,
    width: number,
    colour: readonly number[],
    amount: number,
  ) => {
    for (let y = Math.max(0, top); y < Math.min(right.height, top + height); y++)
      for (let x = Math.max(0, left); x < Math.min(w, left + width); x++)
        blend(out.data, (y * w + x) * 4, colour, amount);
  };
  for (const region of regions) {
    if (region.side === 'left') continue;
    const colour = region.side === 'both' ? CHANGED : ADDED;
    tint(region.top, region.height, region.left, region.width, colour, 0.25);
    // A two-pixel frame, so a small change is found at a glance.
    tint(region.top - 2, 2, region.left - 2, region.width + 4, colour, 1);
    tint(region.top + region.height, 2, region.left - 2, region.width + 4, colour, 1);
    tint(region.top, region.height, region.left - 2, 2, colour, 1);
    tint(region.top, region.height, region.left + region.width, 2, colour, 1);
  }
  for (const at of removedAt) tint(at - 1, 3, 0, w, CHANGED, 1);
  // A light deflate: the image is shown once and thrown away.
  return new Uint8Array(PNG.sync.write(out, { deflateLevel: 3 }));
}

export function pixelDiff(
  leftPng: Uint8Array,
  rightPng: Uint8Array,
  options: PixelDiffOptions = {},
): PixelDiffResult {
  const left = PNG.sync.read(Buffer.from(leftPng.buffer, leftPng.byteOffset, leftPng.byteLength));
  const right = PNG.sync.read(Buffer.from(rightPng.buffer, rightPng.byteOffset, rightPng.byteLength));
  if (left.width !== right.width) {
    throw new Error(`The images differ in width (${left.width} and ${right.width} pixels).`);
  }
  const threshold = options.threshold ?? 0.1;
  const regions: PixelRegion[] = [];
  const removedAt: number[] = [];
  const leftRows = rowHashes(left);
  const rightRows = rowHashes(right);
  const leftEnd = canvasStart(leftRows);
  const rightEnd = canvasStart(rightRows);
  for (const hunk of balance(hunks(leftRows.slice(0, leftEnd), rightRows.slice(0, rightEnd)))) {
    const paired = Math.min(hunk.leftRows, hunk.rightRows);
    if (paired > 0) {
      const box = changedBox(left, right, hunk, paired, threshold);
      if (box) {
        regions.push({
          side: 'both',
          top: hunk.rightTop + box.top,
          height: box.height,
          left: box.left,
          width: box.width,
          leftTop: hunk.leftTop + box.top,
        });
      }
    }
    if (hunk.rightRows > paired) {
      regions.push({
        side: 'right',
        top: hunk.rightTop + paired,
        height: hunk.rightRows - paired,
        left: 0,
        width: right.width,
      });
    }
    if (hunk.leftRows > paired) {
      regions.push({
        side: 'left',
        top: hunk.leftTop + paired,
        height: hunk.leftRows - paired,
        left: 0,
        width: left.width,
      });
      removedAt.push(hunk.rightTop + paired);
    }
  }
  // Both end in the frame's canvas: one of its rows on each side says whether it changed (after
  // every hunk: regions are merged in order).
  if (leftEnd < left.height && rightEnd < right.height) {
    const last = { leftTop: left.height - 1, leftRows: 1, rightTop: right.height - 1, rightRows: 1 };
    if (changedBox(left, right, last, 1, threshold)) {
      regions.push({
        side: 'both',
        top: rightEnd,
        height: right.height - rightEnd,
        left: 0,
        width: right.width,
        leftTop: leftEnd,
      });
    }
  }
  const gap = options.mergeGap ?? 4;
  const merged = [
    ...merge(
      regions.filter((r) => r.side !== 'left'),
      gap,
    ),
    ...merge(
      regions.filter((r) => r.side === 'left'),
      gap,
    ),
  ].sort((a, b) => a.top - b.top);
  return {
    width: right.width,
    leftHeight: left.height,
    rightHeight: right.height,
    regions: merged,
    image: highlight(right, merged, removedAt),
  };
}
