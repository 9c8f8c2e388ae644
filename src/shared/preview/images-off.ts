import { mapValueTokens, rewriteDeclarations } from './css-declarations.ts';

/**
 * "Images off", as Outlook shows an email by default: no image loads, and each `<img>` shows
 * its alt text in its place. `blockImages(doc)` removes every image source an email can have
 * (`<img src/srcset>`, `<picture><source>`, `background` attributes, CSS images in `<style>`
 * blocks and `style` attributes, SVG `<image>`, `<input type=image>`, video posters) and keeps
 * `alt`, `width` and `height`, so the layout keeps its boxes. Like forceDark, it works on any DOM
 * Document and reads nothing else.
 */

// Properties whose url()s are images; fonts (@font-face src) and @import are not images.
const IMAGE_PROPERTY =
  /^(?:background(?:-image)?|list-style(?:-image)?|border-image(?:-source)?|content|cursor|(?:-webkit-)?mask(?:-image)?|-webkit-box-reflect)$/;

/** A style sheet or `style` attribute with every CSS image replaced by `none`. */
export function imagesOffCss(css: string): string {
  return rewriteDeclarations(css, (property, value) => {
    if (!IMAGE_PROPERTY.test(property)) return null;
    const next = mapValueTokens(value, (token) => (token.startsWith('url(') ? 'none' : token)).replace(
      /(?:-webkit-)?image-set\([^()]*(?:\([^()]*\)[^()]*)*\)/gi,
      'none',
    );
    return next === value ? null : next;
  });
}

const SOURCE_ATTRIBUTES: ReadonlyArray<[selector: string, attributes: string[]]> = [
  ['img', ['src', 'srcset']],
  ['picture source', ['src', 'srcset']],
  ['input', ['src']],
  ['video', ['poster']],
  ['[background]', ['background']],
];

const XLINK = 'http://www.w3.org/1999/xlink';

/** Blocks every image of `doc` in place. */
export function blockImages(doc: Document): void {
  for (const [selector, attributes] of SOURCE_ATTRIBUTES) {
    for (const el of Array.from(doc.querySelectorAll(selector))) {
      for (const name of attributes) el.removeAttribute(name);
    }
  }
  for (const image of Array.from(doc.getElementsByTagNameNS('http://www.w3.org/2000/svg', 'image'))) {
    image.removeAttribute('href');
    image.removeAttributeNS(XLINK, 'href');
  }
  for (const style of Array.from(doc.querySelectorAll('style'))) {
    const css = style.textContent ?? '';
    const next = imagesOffCss(css);
    if (next !== css) style.textContent = next;
  }
  for (const el of Array.from(doc.querySelectorAll('[style]'))) {
    const css = el.getAttribute('style') ?? '';
    const next = imagesOffCss(css);
    if (next !== css) el.setAttribute('style', next);
  }
}
