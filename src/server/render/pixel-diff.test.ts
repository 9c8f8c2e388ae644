import { PNG } from 'pngjs';
import { describe, expect, it } from 'vitest';
import { PREVIEW_MIN_HEIGHT_PX } from '../../shared/plans.ts';
import { pixelDiff } from './pixel-diff.ts';

/**
 * The pixel diff and the frame's canvas (docs/decisions/0081-row-aligned-pixel-diff.md): a render
 * is at least PREVIEW_MIN_HEIGHT_PX tall, and below a shorter email that is canvas, not content.
 * Images here are drawn row by row, so every expected region is exact.
 */

type Rgb = readonly [number, number, number];
const WHITE: Rgb = [255, 255, 255];
const GREY: Rgb = [200, 200, 200];
const ORANGE: Rgb = [255, 136, 0];
const WIDTH = 40;

/** `count` rows of content: a stripe pattern no two neighbouring rows of which are alike. */
const content = (count: number, seed = 0): Rgb[] =>
  Array.from({ length: count }, (_, i) => {
    const v = (i * 37 + seed * 101) % 200;
    return [v, 255 - v, (v * 3) % 256] as const;
  });
const rows = (count: number, colour: Rgb): Rgb[] => Array.from({ length: count }, () => colour);

function image(list: Rgb[]): Uint8Array {
  const png = new PNG({ width: WIDTH, height: list.length });
  list.forEach(([r, g, b], y) => {
    for (let x = 0; x < WIDTH; x++) png.data.set([r, g, b, 255], (y * WIDTH + x) * 4);
  });
  return new Uint8Array(PNG.sync.write(png));
}

/** An email `list` tall in the frame: the canvas below it up to the frame's height. */
const framed = (list: Rgb[], canvas: Rgb = WHITE) =>
  image([...list, ...rows(Math.max(0, PREVIEW_MIN_HEIGHT_PX - list.length), canvas)]);

const regionsOf = (left: Uint8Array, right: Uint8Array) =>
  pixelDiff(left, right).regions.map(({ side, top, height, leftTop }) => ({
    side,
    top,
    height,
    ...(leftTop === undefined ? {} : { leftTop }),
  }));

describe('pixel diff: the canvas below a short email', () => {
  it('a banner inserted at the top of a short email is the only region: the canvas it took is not "removed"', () => {
    const body = content(300);
    const regions = regionsOf(framed(body), framed([...rows(120, ORANGE), ...body]));
    expect(regions).toEqual([{ side: 'right', top: 0, height: 120 }]);
  });

  it('a short email that grows past the frame: what it gained is added, its canvas is not compared', () => {
    const body = content(300);
    const regions = regionsOf(framed(body), image([...body, ...content(600, 1)]));
    expect(regions).toEqual([{ side: 'right', top: 300, height: 600 }]);
  });

  it('a canvas that changed colour is still a change', () => {
    const body = content(300);
    const regions = regionsOf(framed(body, WHITE), framed(body, GREY));
    expect(regions).toEqual([{ side: 'both', top: 300, height: 500, leftTop: 300 }]);
  });

  it('an email taller than the frame has no canvas: blank rows taken from its end are removed rows', () => {
    const body = content(900);
    const regions = regionsOf(image([...body, ...rows(100, WHITE)]), image(body));
    expect(regions).toEqual([{ side: 'left', top: 900, height: 100 }]);
  });

  it('two identical short emails: no region', () => {
    expect(regionsOf(framed(content(200)), framed(content(200)))).toEqual([]);
  });
});
