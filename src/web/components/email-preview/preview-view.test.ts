import { describe, expect, it } from 'vitest';
import { defaultWidth, parseView, writeView } from './preview-view.ts';

describe('the preview view in the URL', () => {
  it('reads presets, any width (clamped), modes and images, and falls back on the rest', () => {
    expect(parseView(new URLSearchParams('view=375&mode=dark&images=off'))).toEqual({
      width: 375,
      mode: 'dark',
      images: false,
    });
    expect(parseView(new URLSearchParams('view=desktop&mode=forced-dark')).width).toBe(800);
    expect(parseView(new URLSearchParams('view=9999')).width).toBe(1600);
    expect(parseView(new URLSearchParams('view=10')).width).toBe(240);
    expect(parseView(new URLSearchParams('view=wide&mode=sepia&images=maybe'))).toEqual({
      width: null,
      mode: 'light',
      images: true,
    });
  });

  it('writes only what differs from the default, keeping other parameters', () => {
    const base = new URLSearchParams('tab=source');
    expect(writeView(base, { width: 800, mode: 'light', images: true }).toString()).toBe(
      'tab=source&view=desktop',
    );
    expect(writeView(base, { width: 590, mode: 'forced-dark', images: false }).toString()).toBe(
      'tab=source&view=590&mode=forced-dark&images=off',
    );
    expect(
      writeView(new URLSearchParams('view=375&mode=dark'), {
        width: null,
        mode: 'light',
        images: true,
      }).toString(),
    ).toBe('');
  });

  it('defaults to Desktop wherever the room is wider than a phone, else to the phone width that fits', () => {
    expect(defaultWidth(1072)).toBe(800);
    expect(defaultWidth(571)).toBe(800);
    expect(defaultWidth(375)).toBe(375);
    expect(defaultWidth(343)).toBe(320);
    expect(defaultWidth(0)).toBe(320);
  });
});
