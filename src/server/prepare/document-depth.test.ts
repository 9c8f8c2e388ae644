import { describe, expect, it } from 'vitest';
import { documentDepth, MAX_DOCUMENT_DEPTH } from './document-depth.ts';

describe('documentDepth', () => {
  it('counts nesting as a parser builds it (html, body and the text inside included)', () => {
    expect(documentDepth('x')).toBe(3);
    expect(documentDepth('<p>x</p>')).toBe(4);
    expect(documentDepth('<html><head><title>t</title></head><body><div><p>x</p></div></body></html>')).toBe(
      5,
    );
  });

  it('adds the tbody a parser inserts, and the row around a bare cell', () => {
    expect(documentDepth('<table><tr><td>x</td></tr></table>')).toBe(7);
    expect(documentDepth('<table><tbody><tr><td>x</td></tr></tbody></table>')).toBe(7);
    expect(documentDepth('<table><td>x</td></table>')).toBe(7);
  });

  it('closes what HTML closes implicitly: p, li, td, tr', () => {
    expect(documentDepth(`<div>${'<p>para'.repeat(1000)}</div>`)).toBe(5);
    expect(documentDepth(`<ul>${'<li>item'.repeat(1000)}</ul>`)).toBe(5);
    expect(documentDepth(`<table>${'<tr><td>a<td>b'.repeat(1000)}</table>`)).toBe(7);
  });

  it('never closes what a parser keeps open: a div written as <div/>, unclosed inline elements', () => {
    expect(documentDepth('<div/>'.repeat(1000))).toBe(1003);
    expect(documentDepth('<b><i>'.repeat(500))).toBe(1003);
    // Inside SVG, /> does close.
    expect(documentDepth(`<svg>${'<g/>'.repeat(1000)}</svg>`)).toBe(5);
  });

  it('ends a comment where a parser does: an abrupt <!--> or <!---> and a --!> hide nothing after them', () => {
    const deep = '<div>'.repeat(600);
    for (const comment of ['<!-->', '<!--->', '<!-- note --!>'])
      expect(documentDepth(`${comment}${deep}<!-- end -->`)).toBe(603);
    expect(documentDepth(`<!-- ${deep} -->`)).toBe(3);
  });

  it('skips void elements, comments, conditional comments and raw text', () => {
    expect(documentDepth('<br><img src="x"><hr><!-- <div><div> --><p>x</p>')).toBe(4);
    expect(
      documentDepth(
        '<!--[if mso]><table><tr><td><![endif]--><p>x</p><!--[if mso]></td></tr></table><![endif]-->',
      ),
    ).toBe(4);
    expect(
      documentDepth(`<style>${'<div>'.repeat(1000)}</style><script>${'<div>'.repeat(1000)}</script>`),
    ).toBe(4);
    expect(documentDepth('<p title="a > b <div>">x</p>')).toBe(4);
  });

  it('is linear and takes no stack: 100,000 levels measure in well under a second', () => {
    const html = `${'<div>'.repeat(100_000)}x`;
    const started = performance.now();
    expect(documentDepth(html)).toBe(100_003);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('leaves room for real emails: nested layout tables 60 deep stay under the limit', () => {
    const html = `${'<table><tr><td>'.repeat(60)}x${'</td></tr></table>'.repeat(60)}`;
    expect(documentDepth(html)).toBe(243);
    expect(documentDepth(html)).toBeLessThan(MAX_DOCUMENT_DEPTH);
  });
});
