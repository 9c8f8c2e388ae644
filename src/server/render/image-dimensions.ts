/**
 * An image's size as its header declares it, read without decoding it: Chromium allocates about
 * width × height × 4 bytes to decode an image whatever its file's size, so the renderer refuses
 * images too large to decode before Chromium sees them (image-limit.ts,
 * docs/decisions/0120-renderer-as-the-preview-and-fair.md, amended 2026-11-28: a bound on decoded
 * images).
 *
 * The formats Chromium decodes as raster images: PNG (and APNG), GIF, JPEG, WebP, BMP, ICO/CUR and
 * AVIF. SVG is not read here (it is drawn at its displayed size; image-limit.ts reads the images in
 * it). Every read is bounds-checked and every loop advances: truncated or hostile bytes answer
 * `undefined` (or the largest size read so far), never throw and never loop.
 */

export type ImageFormat = 'png' | 'gif' | 'jpeg' | 'webp' | 'bmp' | 'ico' | 'avif';

export interface ImageDimensions {
  format: ImageFormat;
  width: number;
  height: number;
}

const u8 = (b: Uint8Array, at: number) => (at >= 0 && at < b.length ? b[at]! : -1);
const u16be = (b: Uint8Array, at: number) =>
  at >= 0 && at + 2 <= b.length ? (b[at]! << 8) | b[at + 1]! : -1;
const u16le = (b: Uint8Array, at: number) =>
  at >= 0 && at + 2 <= b.length ? b[at]! | (b[at + 1]! << 8) : -1;
const u24le = (b: Uint8Array, at: number) =>
  at >= 0 && at + 3 <= b.length ? b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) : -1;
const u32be = (b: Uint8Array, at: number) =>
  at >= 0 && at + 4 <= b.length
    ? ((b[at]! << 24) >>> 0) + ((b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!)
    : -1;
const u32le = (b: Uint8Array, at: number) =>
  at >= 0 && at + 4 <= b.length
    ? ((b[at + 3]! << 24) >>> 0) + ((b[at + 2]! << 16) | (b[at + 1]! << 8) | b[at]!)
    : -1;
const i32le = (b: Uint8Array, at: number) => {
  const v = u32le(b, at);
  return v === -1 ? Number.NaN : v | 0;
};
/** `text` (ASCII) at `at`. */
const is = (b: Uint8Array, at: number, text: string) => {
  if (at < 0 || at + text.length > b.length) return false;
  for (let i = 0; i < text.length; i++) if (b[at + i] !== text.charCodeAt(i)) return false;
  return true;
};

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const isPng = (b: Uint8Array, at: number) => PNG_SIGNATURE.every((v, i) => u8(b, at + i) === v);

function sized(format: ImageFormat, width: number, height: number): ImageDimensions | undefined {
  return width >= 0 && height >= 0 && Number.isFinite(width) && Number.isFinite(height)
    ? { format, width, height }
    : undefined;
}

/** PNG at `at`: the IHDR chunk comes first. */
function png(b: Uint8Array, at = 0): ImageDimensions | undefined {
  if (!is(b, at + 12, 'IHDR')) return undefined;
  return sized('png', u32be(b, at + 16), u32be(b, at + 20));
}

/**
 * GIF: the logical screen, grown to every frame's rectangle read (decoders grow the image to a
 * first frame larger than the screen). Extension and image data are skipped by their sub-blocks.
 */
function gif(b: Uint8Array): ImageDimensions | undefined {
  let width = u16le(b, 6);
  let height = u16le(b, 8);
  if (width < 0 || height < 0) return undefined;
  const flags = u8(b, 10);
  let at = 13 + (flags & 0x80 ? 3 << ((flags & 7) + 1) : 0);
  /** Past the sub-blocks starting at `from` (a zero length ends them). */
  const skipBlocks = (from: number) => {
    let p = from;
    for (let len = u8(b, p); len > 0; len = u8(b, p)) p += len + 1;
    return u8(b, p) === 0 ? p + 1 : -1;
  };
  while (at >= 0 && at < b.length) {
    const kind = b[at]!;
    if (kind === 0x21) at = skipBlocks(at + 2);
    else if (kind === 0x2c) {
      const [left, top, w, h] = [u16le(b, at + 1), u16le(b, at + 3), u16le(b, at + 5), u16le(b, at + 7)];
      if (h < 0) break;
      width = Math.max(width, left + w);
      height = Math.max(height, top + h);
      const local = u8(b, at + 9);
      at = skipBlocks(at + 10 + (local & 0x80 ? 3 << ((local & 7) + 1) : 0) + 1);
    } else break;
  }
  return sized('gif', width, height);
}

/** Start-of-frame markers (SOF0–SOF15 but DHT, JPG and DAC), which carry the frame's size. */
const isSof = (marker: number) =>
  marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/**
 * JPEG: the first start-of-frame segment, reached by skipping the segments before it (APPn with
 * their Exif and ICC profiles, DQT, DHT, ...) by their lengths. Bytes between segments are skipped
 * to the next 0xFF, as libjpeg does (next_marker), so what it would find we find.
 */
function jpeg(b: Uint8Array): ImageDimensions | undefined {
  let at = 2;
  while (at < b.length) {
    while (at < b.length && b[at] !== 0xff) at++;
    while (at < b.length && b[at] === 0xff) at++;
    if (at >= b.length) return undefined;
    const marker = b[at++]!;
    // A stuffed zero, TEM, RSTn, SOI: no length follows.
    if (marker === 0x00 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) continue;
    // End of image or start of scan before any frame: no size.
    if (marker === 0xd9 || marker === 0xda) return undefined;
    const length = u16be(b, at);
    if (length < 2) return undefined;
    if (isSof(marker)) return sized('jpeg', u16be(b, at + 5), u16be(b, at + 3));
    at += length;
  }
  return undefined;
}

/** WebP: a lossy (VP8), lossless (VP8L) or extended (VP8X: the canvas) first chunk. */
function webp(b: Uint8Array): ImageDimensions | undefined {
  if (is(b, 12, 'VP8 ')) {
    if (u8(b, 23) !== 0x9d || u8(b, 24) !== 0x01 || u8(b, 25) !== 0x2a) return undefined;
    const w = u16le(b, 26);
    const h = u16le(b, 28);
    return w < 0 || h < 0 ? undefined : sized('webp', w & 0x3fff, h & 0x3fff);
  }
  if (is(b, 12, 'VP8L')) {
    const bits = u32le(b, 21);
    if (u8(b, 20) !== 0x2f || bits < 0) return undefined;
    return sized('webp', (bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1);
  }
  if (is(b, 12, 'VP8X')) {
    const w = u24le(b, 24);
    const h = u24le(b, 27);
    return w < 0 || h < 0 ? undefined : sized('webp', w + 1, h + 1);
  }
  return undefined;
}

/** A BMP's DIB header at `at` (an OS/2 core header or a BITMAPINFOHEADER and later). */
function dib(b: Uint8Array, at: number, format: ImageFormat): ImageDimensions | undefined {
  const size = u32le(b, at);
  if (size === 12) return sized(format, u16le(b, at + 4), u16le(b, at + 6));
  if (size < 16) return undefined;
  // A negative height is a top-down bitmap.
  return sized(format, Math.abs(i32le(b, at + 4)), Math.abs(i32le(b, at + 8)));
}

/** ICO and CUR: the largest of the images in its directory, each a PNG or a DIB. */
function ico(b: Uint8Array): ImageDimensions | undefined {
  const count = u16le(b, 4);
  let best: ImageDimensions | undefined;
  for (let i = 0; i < count && 6 + 16 * (i + 1) <= b.length; i++) {
    const entry = 6 + 16 * i;
    const offset = u32le(b, entry + 12);
    const inner = isPng(b, offset) ? png(b, offset) : dib(b, offset, 'ico');
    const found = inner
      ? // A DIB in an icon holds its image and its mask: twice the height.
        {
          format: 'ico' as const,
          width: inner.width,
          height: isPng(b, offset) ? inner.height : inner.height / 2,
        }
      : { format: 'ico' as const, width: b[entry] || 256, height: b[entry + 1] || 256 };
    if (!best || found.width * found.height > best.width * best.height) best = found;
  }
  return best;
}

/**
 * AVIF (ISO BMFF): the largest `ispe` (image spatial extents) property of any item, under
 * meta → iprp → ipco. Boxes are walked by their sizes; each step moves forward.
 */
function avif(b: Uint8Array): ImageDimensions | undefined {
  let best: ImageDimensions | undefined;
  const walk = (from: number, to: number, path: readonly string[]) => {
    let at = from;
    while (at + 8 <= to) {
      let size = u32be(b, at);
      let header = 8;
      if (size === 1) {
        // A 64-bit size: past 2^32 bytes is past any buffer here.
        if (u32be(b, at + 8) !== 0) return;
        size = u32be(b, at + 12);
        header = 16;
      } else if (size === 0) size = to - at;
      if (size < header) return;
      const end = Math.min(to, at + size);
      const type = String.fromCharCode(b[at + 4]!, b[at + 5]!, b[at + 6]!, b[at + 7]!);
      const [next, ...rest] = path;
      if (type === next) {
        // meta is a full box: a version and flags come before its children.
        if (type === 'meta') walk(at + header + 4, end, rest);
        else if (type === 'ispe') {
          const found = sized('avif', u32be(b, at + header + 4), u32be(b, at + header + 8));
          if (found && (!best || found.width * found.height > best.width * best.height)) best = found;
        } else walk(at + header, end, rest);
      }
      at += size;
    }
  };
  walk(0, b.length, ['meta', 'iprp', 'ipco', 'ispe']);
  return best;
}

/** The size `bytes` declare, if they are an image of a format read here; `undefined` otherwise. */
export function imageDimensions(bytes: Uint8Array): ImageDimensions | undefined {
  if (isPng(bytes, 0)) return png(bytes);
  if (is(bytes, 0, 'GIF87a') || is(bytes, 0, 'GIF89a')) return gif(bytes);
  if (u8(bytes, 0) === 0xff && u8(bytes, 1) === 0xd8) return jpeg(bytes);
  if (is(bytes, 0, 'RIFF') && is(bytes, 8, 'WEBP')) return webp(bytes);
  if (is(bytes, 0, 'BM')) return dib(bytes, 14, 'bmp');
  if (u16le(bytes, 0) === 0 && (u16le(bytes, 2) === 1 || u16le(bytes, 2) === 2)) return ico(bytes);
  if (is(bytes, 4, 'ftyp')) return avif(bytes);
  return undefined;
}
