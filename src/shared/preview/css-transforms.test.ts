import { describe, expect, it } from 'vitest';
import { formatColor, parseColor, parseLegacyColor } from './css-color.ts';
import { rewriteDeclarations } from './css-declarations.ts';
import { forcedDarkColor, forcedDarkCss } from './forced-dark.ts';
import { imagesOffCss } from './images-off.ts';

const hex = (text: string) => {
  const c = parseColor(text);
  return c ? formatColor(c) : null;
};

describe('parseColor', () => {
  it.each([
    ['#fff', '#ffffff'],
    ['#FFFFFF', '#ffffff'],
    ['#12345680', 'rgba(18, 52, 86, 0.502)'],
    ['rgb(255, 0, 0)', '#ff0000'],
    ['rgb(100% 0% 0%)', '#ff0000'],
    ['rgba(0,0,0,.5)', 'rgba(0, 0, 0, 0.5)'],
    ['rgb(0 0 0 / 25%)', 'rgba(0, 0, 0, 0.25)'],
    ['hsl(0, 100%, 50%)', '#ff0000'],
    ['hsl(120deg 100% 25%)', '#008000'],
    ['hsla(240, 100%, 50%, 0.5)', 'rgba(0, 0, 255, 0.5)'],
    ['White', '#ffffff'],
    ['rebeccapurple', '#663399'],
    ['transparent', 'rgba(0, 0, 0, 0)'],
  ])('%s is %s', (text, expected) => expect(hex(text)).toBe(expected));

  it.each(['currentcolor', 'inherit', 'var(--x)', 'solid', '#ggg', 'rgb(1,2)', 'url(#fff)', ''])(
    '%s is not a colour',
    (text) => expect(parseColor(text)).toBeNull(),
  );

  it('reads the legacy attribute form, with or without #', () => {
    expect(formatColor(parseLegacyColor('ffffff')!)).toBe('#ffffff');
    expect(formatColor(parseLegacyColor('#FFF')!)).toBe('#ffffff');
    expect(formatColor(parseLegacyColor('navy')!)).toBe('#000080');
    expect(parseLegacyColor('not-a-colour')).toBeNull();
  });
});

describe('rewriteDeclarations', () => {
  const upper = (css: string) => rewriteDeclarations(css, (_p, v) => v.toUpperCase());

  it('rewrites values only: selectors, at-rules, comments and strings stay', () => {
    const css = `/* a{color:red} */ a:hover{color:red}@media (max-width:600px){.x > p{background:blue;}}`;
    expect(upper(css)).toBe(
      `/* a{color:red} */ a:hover{color:RED}@media (max-width:600px){.x > p{background:BLUE;}}`,
    );
  });

  it('does not split a data: URL at its semicolon', () => {
    const css = 'background:url(data:image/png;base64,AAA) red; color: blue';
    expect(rewriteDeclarations(css, (p) => (p === 'color' ? ' green' : null))).toBe(
      'background:url(data:image/png;base64,AAA) red; color: green',
    );
  });

  it('passes lower-cased property names', () => {
    const seen: string[] = [];
    rewriteDeclarations('COLOR:red;Background-Color : blue', (p) => (seen.push(p), null));
    expect(seen).toEqual(['color', 'background-color']);
  });
});

describe('forced dark', () => {
  it('darkens light backgrounds and lightens dark text, keeping the rest', () => {
    const bg = (c: string) => formatColor(forcedDarkColor(parseColor(c)!, 'background'));
    const text = (c: string) => formatColor(forcedDarkColor(parseColor(c)!, 'text'));
    expect(bg('#ffffff')).toBe('#121212');
    expect(bg('#0066cc')).toBe('#0066cc'); // already dark: kept
    expect(text('#000000')).toBe('#ededed');
    expect(text('#ffffff')).toBe('#ffffff'); // already light: kept
    // Mid-grey barely moves either way (the mapping is continuous).
    expect(bg('#808080')).toBe('#7f7f7f');
  });

  it('recolours colour declarations of a style sheet and leaves the others and url()s', () => {
    const css = `body{background:#fff url(white.png) no-repeat;color:#000;font-family:White}td{border:1px solid #eee}.btn{background-color:#0066cc !important;color:white}`;
    expect(forcedDarkCss(css)).toBe(
      `body{background:#121212 url(white.png) no-repeat;color:#ededed;font-family:White}td{border:1px solid #202020}.btn{background-color:#0066cc !important;color:white}`,
    );
  });
});

describe('images off', () => {
  it('replaces CSS images with none, but keeps fonts and imports', () => {
    const css = `@import url(https://fonts.example/x.css);@font-face{src:url(f.woff2)}td{background:#fff url("a.png") no-repeat}div{background-image:image-set(url(a.png) 1x, url(b.png) 2x)}`;
    expect(imagesOffCss(css)).toBe(
      `@import url(https://fonts.example/x.css);@font-face{src:url(f.woff2)}td{background:#fff none no-repeat}div{background-image:none}`,
    );
  });
});
