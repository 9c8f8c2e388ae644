import { crc32 } from 'node:zlib';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { imageDimensions } from './image-dimensions.ts';

/**
 * The sizes images declare, read from their headers (image-dimensions.ts,
 * docs/decisions/0120-renderer-as-the-preview-and-fair.md, amended 2026-11-28: a bound on decoded
 * images): each format, headers far into a JPEG, and bytes that are cut short or garbage.
 */

const u16le = (v: number) => Buffer.from([v & 0xff, (v >> 8) & 0xff]);
const u16be = (v: number) => Buffer.from([(v >> 8) & 0xff, v & 0xff]);
const u24le = (v: number) => Buffer.from([v & 0xff, (v >> 8) & 0xff, (v >> 16) & 0xff]);
const u32le = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v >>> 0);
  return b;
};
const u32be = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v >>> 0);
  return b;
};
const ascii = (s: string) => Buffer.from(s, 'latin1');

function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([ascii(type), data]);
  return Buffer.concat([u32be(data.length), body, u32be(crc32(body))]);
}
/** A PNG's signature and IHDR: what its size is read from. */
const pngHeader = (width: number, height: number) =>
  Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', Buffer.concat([u32be(width), u32be(height), Buffer.from([1, 0, 0, 0, 0])])),
  ]);

function gif(screen: [number, number], frames: Array<[number, number, number, number]>): Buffer {
  const parts = [ascii('GIF89a'), u16le(screen[0]), u16le(screen[1]), Buffer.from([0x80, 0, 0])];
  parts.push(Buffer.alloc(6)); // a global colour table of two entries
  // A graphic control extension, then each frame: descriptor, LZW code size, data sub-blocks.
  parts.push(Buffer.from([0x21, 0xf9, 4, 0, 0, 0, 0, 0]));
  for (const [left, top, w, h] of frames) {
    parts.push(Buffer.from([0x2c]), u16le(left), u16le(top), u16le(w), u16le(h), Buffer.from([0]));
    parts.push(Buffer.from([2, 3, 1, 2, 3, 1, 0xff, 0]));
  }
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}

const segment = (marker: number, data: Buffer) =>
  Buffer.concat([Buffer.from([0xff, marker]), u16be(data.length + 2), data]);
const sof = (marker: number, width: number, height: number) =>
  segment(
    marker,
    Buffer.concat([Buffer.from([8]), u16be(height), u16be(width), Buffer.from([1, 1, 0x11, 0])]),
  );
const SOI = Buffer.from([0xff, 0xd8]);

const riff = (chunk: string, data: Buffer) =>
  Buffer.concat([
    ascii('RIFF'),
    u32le(4 + 8 + data.length),
    ascii('WEBP'),
    ascii(chunk),
    u32le(data.length),
    data,
  ]);

const box = (type: string, ...children: Buffer[]) => {
  const body = Buffer.concat(children);
  return Buffer.concat([u32be(8 + body.length), ascii(type), body]);
};
const fullBox = (type: string, ...children: Buffer[]) => box(type, Buffer.alloc(4), ...children);
const avif = (...sizes: Array<[number, number]>) =>
  Buffer.concat([
    box('ftyp', ascii('avif'), u32be(0), ascii('mif1avif')),
    fullBox(
      'meta',
      fullBox('hdlr', Buffer.alloc(4), ascii('pict'), Buffer.alloc(13)),
      box('iprp', box('ipco', ...sizes.map(([w, h]) => fullBox('ispe', u32be(w), u32be(h))), box('ipma'))),
    ),
    box('mdat', Buffer.alloc(16)),
  ]);

const bmpInfo = (width: number, height: number) =>
  Buffer.concat([u32le(40), u32le(width), u32le(height), u16le(1), u16le(24), Buffer.alloc(24)]);

describe('imageDimensions', () => {
  it('PNG: IHDR, from a header alone and from a whole file', () => {
    expect(imageDimensions(pngHeader(20_000, 20_000))).toEqual({
      format: 'png',
      width: 20_000,
      height: 20_000,
    });
    const whole = PNG.sync.write(new PNG({ width: 1200, height: 800 }));
    expect(imageDimensions(whole)).toEqual({ format: 'png', width: 1200, height: 800 });
  });

  it('GIF: the logical screen, grown to a frame larger than it', () => {
    expect(imageDimensions(gif([640, 480], [[0, 0, 640, 480]]))).toEqual({
      format: 'gif',
      width: 640,
      height: 480,
    });
    expect(
      imageDimensions(
        gif(
          [1, 1],
          [
            [0, 0, 1, 1],
            [100, 50, 30_000, 20_000],
          ],
        ),
      ),
    ).toEqual({ format: 'gif', width: 30_100, height: 20_050 });
  });

  it('JPEG: the start of frame after other segments, fill bytes and stray bytes', () => {
    const app0 = segment(0xe0, Buffer.concat([ascii('JFIF\0'), Buffer.alloc(9)]));
    // An Exif segment whose data is full of 0xFF and fake markers: skipped by its length.
    const app1 = segment(
      0xe1,
      Buffer.concat([ascii('Exif\0\0'), Buffer.alloc(60_000, 0xff), sof(0xc0, 1, 1)]),
    );
    const dqt = segment(0xdb, Buffer.alloc(65));
    const dht = segment(0xc4, Buffer.alloc(30));
    const jpeg = Buffer.concat([
      SOI,
      app0,
      app1,
      Buffer.from([0xff, 0xff]), // fill bytes before a marker
      dqt,
      Buffer.from([0x00, 0x12]), // stray bytes between segments, skipped as libjpeg does
      dht,
      sof(0xc2, 8_000, 6_000),
      segment(0xda, Buffer.alloc(10)),
      Buffer.from([0xff, 0xd9]),
    ]);
    expect(imageDimensions(jpeg)).toEqual({ format: 'jpeg', width: 8_000, height: 6_000 });
    expect(imageDimensions(Buffer.concat([SOI, sof(0xc0, 1200, 800)]))).toEqual({
      format: 'jpeg',
      width: 1200,
      height: 800,
    });
    // A scan before any frame, or no frame at all: no size.
    expect(imageDimensions(Buffer.concat([SOI, dqt, segment(0xda, Buffer.alloc(4))]))).toBeUndefined();
    expect(imageDimensions(Buffer.concat([SOI, dqt]))).toBeUndefined();
  });

  it('WebP: lossy, lossless and extended', () => {
    const vp8 = Buffer.concat([
      Buffer.from([0x10, 0x02, 0x00, 0x9d, 0x01, 0x2a]),
      u16le(16_383),
      u16le(9_000),
    ]);
    expect(imageDimensions(riff('VP8 ', vp8))).toEqual({ format: 'webp', width: 16_383, height: 9_000 });
    const bits = (16_000 - 1) | ((12_000 - 1) << 14);
    const vp8l = Buffer.concat([Buffer.from([0x2f]), u32le(bits)]);
    expect(imageDimensions(riff('VP8L', vp8l))).toEqual({ format: 'webp', width: 16_000, height: 12_000 });
    const vp8x = Buffer.concat([Buffer.from([0x10, 0, 0, 0]), u24le(20_000 - 1), u24le(20_000 - 1)]);
    expect(imageDimensions(riff('VP8X', vp8x))).toEqual({ format: 'webp', width: 20_000, height: 20_000 });
  });

  it('BMP: an info header (top-down too) and an OS/2 core header', () => {
    const file = (dib: Buffer) =>
      Buffer.concat([ascii('BM'), u32le(14 + dib.length), u32le(0), u32le(54), dib]);
    expect(imageDimensions(file(bmpInfo(30_000, -30_000)))).toEqual({
      format: 'bmp',
      width: 30_000,
      height: 30_000,
    });
    const core = Buffer.concat([u32le(12), u16le(640), u16le(480), u16le(1), u16le(24)]);
    expect(imageDimensions(file(core))).toEqual({ format: 'bmp', width: 640, height: 480 });
  });

  it('ICO: the largest of its images, a PNG or a bitmap (with its mask)', () => {
    const png = pngHeader(20_000, 20_000);
    const dib = bmpInfo(32, 64);
    const entry = (offset: number, size: number) =>
      Buffer.concat([Buffer.from([0, 0, 0, 0]), u16le(1), u16le(32), u32le(size), u32le(offset)]);
    const ico = Buffer.concat([
      Buffer.from([0, 0, 1, 0]),
      u16le(2),
      entry(6 + 32, dib.length),
      entry(6 + 32 + dib.length, png.length),
      dib,
      png,
    ]);
    expect(imageDimensions(ico)).toEqual({ format: 'ico', width: 20_000, height: 20_000 });
    const small = Buffer.concat([Buffer.from([0, 0, 1, 0]), u16le(1), entry(22, dib.length), dib]);
    expect(imageDimensions(small)).toEqual({ format: 'ico', width: 32, height: 32 });
  });

  it('AVIF: the largest image spatial extents', () => {
    expect(imageDimensions(avif([600, 400], [40_000, 30_000]))).toEqual({
      format: 'avif',
      width: 40_000,
      height: 30_000,
    });
  });

  it('formats it does not read, SVG included, answer undefined', () => {
    for (const bytes of [
      ascii('<svg xmlns="http://www.w3.org/2000/svg" width="9e9"/>'),
      ascii('hello'),
      Buffer.alloc(0),
    ]) {
      expect(imageDimensions(bytes)).toBeUndefined();
    }
  });

  it('never throws on bytes cut short or garbage, and answers quickly', () => {
    const samples = [
      pngHeader(20_000, 20_000),
      gif([100, 100], [[0, 0, 100, 100]]),
      Buffer.concat([SOI, segment(0xe1, Buffer.alloc(300, 0xff)), sof(0xc0, 100, 100)]),
      riff('VP8X', Buffer.concat([Buffer.alloc(4), u24le(99), u24le(99)])),
      avif([100, 100]),
    ];
    for (const sample of samples) {
      for (let n = 0; n <= sample.length; n++)
        expect(() => imageDimensions(sample.subarray(0, n))).not.toThrow();
    }
    // Random bytes behind each signature, and boxes, blocks and segments whose lengths lie.
    let seed = 7;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff) / 0x7fffffff;
    const started = Date.now();
    for (let i = 0; i < 3_000; i++) {
      const sample = samples[i % samples.length]!;
      const noise = Buffer.from(
        Array.from({ length: Math.floor(random() * 400) }, () => Math.floor(random() * 256)),
      );
      const cut = Math.floor(random() * sample.length);
      expect(() => imageDimensions(Buffer.concat([sample.subarray(0, cut), noise]))).not.toThrow();
    }
    const zeros = Buffer.alloc(5_000_000);
    for (const head of [
      SOI,
      ascii('GIF89a'),
      Buffer.from([0, 0, 1, 0, 0xff, 0xff]),
      Buffer.concat([u32be(0), ascii('ftyp')]),
    ]) {
      zeros.fill(0);
      head.copy(zeros);
      expect(() => imageDimensions(zeros)).not.toThrow();
    }
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
