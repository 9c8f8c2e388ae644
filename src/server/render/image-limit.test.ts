import { crc32 } from 'node:zlib';
import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { imageDimensions } from './image-dimensions.ts';
import { boundInlineImages, boundInlineImagesIn, MAX_IMAGE_PIXELS } from './image-limit.ts';

/**
 * The `data:` images of what Chromium is given are bounded before it decodes them (image-limit.ts,
 * docs/decisions/0120-renderer-as-the-preview-and-fair.md, amended 2026-11-28): wherever they are,
 * however they are written, and in one linear pass.
 */

const u32be = (v: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(v >>> 0);
  return b;
};
/** A PNG's signature and IHDR: all the scan reads. */
function pngHeader(width: number, height: number): Buffer {
  const body = Buffer.concat([
    Buffer.from('IHDR'),
    u32be(width),
    u32be(height),
    Buffer.from([1, 0, 0, 0, 0]),
  ]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    u32be(13),
    body,
    u32be(crc32(body)),
  ]);
}
const HUGE = `data:image/png;base64,${pngHeader(20_000, 20_000).toString('base64')}`;
const ORDINARY = `data:image/png;base64,${PNG.sync.write(new PNG({ width: 1200, height: 800 })).toString('base64')}`;
const PLACEHOLDER = `data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="20000" height="20000"/>')}`;

/** How many placeholders of a 20,000 × 20,000 image `text` has. */
const placeholders = (text: string) => text.split(PLACEHOLDER).length - 1;

describe('boundInlineImages', () => {
  it('replaces a data: image over the limit by an empty SVG of its size, wherever it is', () => {
    const html = [
      `<img width="600" height="600" src="${HUGE}">`,
      `<img srcset="${ORDINARY} 1x, ${HUGE} 2x">`,
      `<div style="background-image:url(${HUGE})"></div>`,
      `<div style='background: url("${HUGE}") no-repeat'></div>`,
      `<table background="${HUGE}"><tr><td>x</td></tr></table>`,
      `<style>.a{background:url('${HUGE}')}</style>`,
      `<img src=${HUGE} alt=x>`,
      `<img src="${HUGE}" alt="x">`,
    ].join('\n');
    const out = boundInlineImages(html);
    expect(placeholders(out.text)).toBe(8);
    expect(out.text).not.toContain(HUGE);
    // Everything else as it was: the small image, the srcset's descriptors, the markup.
    expect(out.text).toBe(html.split(HUGE).join(PLACEHOLDER));
    // One image, written eight times.
    expect(out.leftOut).toEqual([HUGE]);
  });

  it('leaves images within the limit, and everything else, as they are', () => {
    const html = `<img src="${ORDINARY}"><p>metadata: a, b</p><a href="data:text/plain,hello">x</a>`;
    expect(boundInlineImages(html)).toEqual({ text: html, leftOut: [] });
    expect(imageDimensions(pngHeader(5_000, 5_000))).toMatchObject({ width: 5_000, height: 5_000 });
    expect(5_000 * 5_000).toBe(MAX_IMAGE_PIXELS);
    const atLimit = `data:image/png;base64,${pngHeader(5_000, 5_000).toString('base64')}`;
    expect(boundInlineImages(`<img src="${atLimit}">`).leftOut).toEqual([]);
  });

  it('reads the bytes, not the declared type; the scheme in any case; base64 over lines and %-escaped', () => {
    const b64 = pngHeader(20_000, 20_000).toString('base64');
    const variants = [
      `DATA:IMAGE/PNG;BASE64,${b64}`,
      `data:text/plain;base64,${b64}`,
      `data:;base64,${b64}`,
      `data:image/png ; base64 ,${b64}`.replace(' ,', ','),
      `data:image/png;base64,${b64.slice(0, 10)}\n  ${b64.slice(10, 30)}\r\n${b64.slice(30)}`,
      `data:image/png;base64,${b64.slice(0, 25)}%${b64.charCodeAt(25).toString(16)}${b64.slice(26)}`,
      `data:image/png,${[...pngHeader(20_000, 20_000)].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')}`,
    ];
    for (const url of variants) {
      const out = boundInlineImages(`<img src="${url}" width="1">`);
      expect(out.leftOut, url).toEqual([url]);
      expect(out.text, url).toBe(`<img src="${PLACEHOLDER}" width="1">`);
    }
  });

  it('reads the images in SVG images, base64 or written out, to a depth', () => {
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><image href="${HUGE}"/></svg>`;
    const b64 = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    const out = boundInlineImages(`<img src="${b64}">`);
    expect(out.leftOut).toEqual([HUGE]);
    const inner = Buffer.from(
      out.text.slice('<img src="data:image/svg+xml;base64,'.length, -2),
      'base64',
    ).toString();
    expect(inner).toBe(svg.replace(HUGE, PLACEHOLDER));

    const written = `data:image/svg+xml,${encodeURIComponent(svg)}`;
    expect(boundInlineImages(`<div style="background:url('${written}')"></div>`).leftOut).toEqual([HUGE]);

    // SVG in SVG in ...: past the depth, an SVG is left out whole.
    let nested = svg;
    for (let i = 0; i < 6; i++)
      nested = `<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/svg+xml;base64,${Buffer.from(nested).toString('base64')}"/></svg>`;
    const deep = boundInlineImages(
      `<img src="data:image/svg+xml;base64,${Buffer.from(nested).toString('base64')}">`,
    );
    expect(deep.leftOut).toHaveLength(1);
    expect(deep.text).not.toContain(HUGE);
  });

  it('bounds a fetched style sheet or SVG byte for byte', () => {
    const css = Buffer.from(`.a{background:url(${HUGE})} /* caf\xe9 */`, 'latin1');
    const out = boundInlineImagesIn(css);
    expect(out.leftOut).toEqual([HUGE]);
    expect(out.body.toString('latin1')).toBe(`.a{background:url(${PLACEHOLDER})} /* caf\xe9 */`);
    const plain = Buffer.from('.b{color:red}\xff', 'latin1');
    expect(boundInlineImagesIn(plain).body).toBe(plain);
  });

  it('is linear on a 1 MB email built to make it quadratic', () => {
    const n = 1024 * 1024;
    const inputs = [
      'data:'.repeat(n / 5),
      '"data:,'.repeat(n / 7),
      `"${'data:,'.repeat(n / 6)}`,
      `data:image/png;base64,${'A '.repeat(n / 2)}`,
      `data:;base64,${'A data '.repeat(n / 7)}`,
      `(data:image/svg+xml,${'a'.repeat(n)}`,
      `'data:image/svg+xml,${"data:image/svg+xml,'".repeat(n / 20)}`,
      `${'data:image/svg+xml;base64,'.repeat(n / 26)}`,
    ];
    for (const input of inputs) {
      const started = performance.now();
      boundInlineImages(input + HUGE);
      expect(performance.now() - started, input.slice(0, 30)).toBeLessThan(1_000);
    }
  });
});
