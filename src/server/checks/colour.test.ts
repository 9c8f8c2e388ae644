import { describe, expect, it } from 'vitest';
import { contrastRatio, hex, parseColour, rgbNumber } from './colour.ts';

describe('parseColour', () => {
  it('reads hex, rgb() and the names emails use; what cannot be judged is null', () => {
    expect(parseColour('#fA3')).toEqual([255, 170, 51]);
    expect(parseColour(' #FFAA33 ')).toEqual([255, 170, 51]);
    expect(parseColour('#ffaa33ff')).toEqual([255, 170, 51]);
    expect(parseColour('rgb(255, 170, 51)')).toEqual([255, 170, 51]);
    expect(parseColour('rgba(255 170 51 / 100%)')).toEqual([255, 170, 51]);
    expect(parseColour('rgb(300, 0, 0)')).toEqual([255, 0, 0]);
    expect(parseColour('Navy')).toEqual([0, 0, 128]);
    for (const unjudged of ['rgba(0,0,0,.5)', '#ffaa3380', 'transparent', 'currentColor', 'var(--x)', ''])
      expect(parseColour(unjudged)).toBeNull();
  });

  it('reads every colour right however many an email holds (the values read are kept, then let go)', () => {
    for (let n = 0; n < 3000; n++) {
      const value = `#${n.toString(16).padStart(6, '0')}`;
      expect(hex(parseColour(value)!)).toBe(value);
      expect(rgbNumber(parseColour(value)!)).toBe(n);
    }
    expect(parseColour('#000001')).toEqual([0, 0, 1]);
  });

  it('gives WCAG contrast ratios', () => {
    expect(contrastRatio([0, 0, 0], [255, 255, 255])).toBeCloseTo(21, 5);
    expect(contrastRatio([119, 119, 119], [255, 255, 255])).toBeCloseTo(4.48, 2);
  });
});
