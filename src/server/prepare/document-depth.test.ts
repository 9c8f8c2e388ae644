import fc from 'fast-check';
import { parse } from 'parse5';
import { describe, expect, it } from 'vitest';
import { documentDepth, MAX_DOCUMENT_DEPTH } from './document-depth.ts';

/**
 * The depth of the tree a spec-conforming parser builds (parse5 runs the HTML standard's algorithm,
 * as the inliner's html5ever does): document 0, html 1, body 2, … and a text or comment one deeper.
 */
function parserDepth(html: string): number {
  type Node = { childNodes?: Node[]; content?: Node };
  let deepest = 0;
  const stack: [Node, number][] = [[parse(html) as Node, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    deepest = Math.max(deepest, depth);
    for (const child of [...(node.childNodes ?? []), ...(node.content?.childNodes ?? [])])
      stack.push([child, depth + 1]);
  }
  return deepest;
}

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

  it('reads what the generated tag soup found as a parser does', () => {
    for (const html of [
      // A <template> inside a <select> is read as any template: its <xmp> is raw text.
      '<select><template><xmp><body>',
      // Inside a <select> other end tags are ignored: the <div> stays open around it.
      '<div/><select></div><script></div>',
      // </p> in MathML leaves it, and with no p open a parser inserts an empty one.
      '<math></p><g/><div/><div>x',
      // A <math> inside an <svg> is SVG, and SVG's <title> lets HTML in.
      '<svg><math><title><div>x',
      // A form inside a form is ignored before it would close the paragraph.
      '<form><p><form><applet>x',
      // With scripting on (html5ever, parse5), <noscript> is raw text.
      '<noscript><style></noscript><div><b id=2><div>x',
    ])
      expect(documentDepth(html), html).toBe(parserDepth(html));
    for (const html of [
      // After text a parser ignores <frameset>, and </frameset> closes nothing (counted as opened).
      'x<frameset><g/></frameset><div><iframe></div>',
      // A cell in a template's table gets the body and row a parser may insert around it, as
      // levels no end tag closes.
      '<template><caption><th>x',
      '<template><td><div></tr><div><div><xmp></div>',
      '<template><th></tbody><div/><div><div>x',
      // An SVG <td> is no cell: a <tr> in its <title> is ignored, and closes nothing.
      '<svg><td><title><tr><div>x',
    ])
      expect(documentDepth(html), html).toBeGreaterThanOrEqual(parserDepth(html));
    // Those levels are counted once: a thousand cells in a template are no deeper than one.
    expect(documentDepth(`<template>${'<td>x'.repeat(1000)}`)).toBe(documentDepth('<template><td>x'));
    // Each template inside the last is counted, as deep as a parser nests them.
    const templates = `<select>${'<template>'.repeat(600)}x`;
    expect(documentDepth(templates)).toBe(parserDepth(templates));
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

  it('is linear and takes no stack: 100,000 levels measure', () => {
    // No clock here (a busy machine is not a slow algorithm): a quadratic or recursive reading of
    // these levels runs past the test's time limit or out of stack.
    const html = `${'<div>'.repeat(100_000)}x`;
    expect(documentDepth(html)).toBe(100_003);
  });

  it('leaves room for real emails: nested layout tables 60 deep stay under the limit', () => {
    const html = `${'<table><tr><td>'.repeat(60)}x${'</td></tr></table>'.repeat(60)}`;
    expect(documentDepth(html)).toBe(243);
    expect(documentDepth(html)).toBeLessThan(MAX_DOCUMENT_DEPTH);
  });

  it('reads tags as a parser does: a quote opens a value only after =', () => {
    const deep = '<div>'.repeat(600);
    for (const tag of ['<div a=b"c>', "<div a=b'c>", '<div "a>', '<div/"x>', '</div "x>'])
      expect(documentDepth(`${tag}${deep}x<p title=">">`)).toBeGreaterThan(MAX_DOCUMENT_DEPTH);
  });

  it('ignores the end tags a parser ignores, and keeps what a form or a formatting element leaves open', () => {
    // Out of scope (a cell, a special element in the way), an end tag closes nothing.
    const cells = `${'<div><table><tr><td>'.repeat(150)}${'</div>'.repeat(150)}x`;
    expect(documentDepth(cells)).toBe(parserDepth(cells));
    expect(documentDepth(`${'<span><div></span>'.repeat(300)}x`)).toBeGreaterThanOrEqual(600);
    // </b> and </form> leave the block inside them open.
    expect(documentDepth(`${'<b><div></b>'.repeat(300)}x`)).toBeGreaterThan(300);
    expect(documentDepth(`${'<form><div></form>'.repeat(300)}x`)).toBe(603);
  });

  it('counts the formatting elements a parser reopens before text (the adoption of <b id=…>)', () => {
    const reopened = Array.from({ length: 1000 }, (_, n) => `<p><b id=${n}>x</p>`).join('');
    expect(documentDepth(reopened)).toBe(1004);
    // Three alike at most are reopened.
    expect(documentDepth('<p><b>x</p>'.repeat(1000))).toBe(8);
    // So many reopenings that counting them is work: far too deep, without counting to the end.
    const bomb = Array.from({ length: 50_000 }, (_, n) => `<p><b id=${n}>x</p>`).join('');
    expect(documentDepth(bomb)).toBe(Number.POSITIVE_INFINITY);
  });

  it('leaves SVG and MathML where a parser does: an HTML tag inside closes them', () => {
    expect(documentDepth(`<svg><div>${'<g/>'.repeat(1000)}`)).toBe(1004);
    expect(documentDepth(`<svg>${'<input>'.repeat(1000)}`)).toBe(1004);
    expect(documentDepth(`<svg>${'<g/>'.repeat(1000)}</svg>`)).toBe(5);
  });

  it('ignores <svg> and <math> inside a <select>, as a parser does', () => {
    // Found by the generated tag soup below: the <template> is HTML's, its <div><p> nest inside it.
    const html = '<select><svg><template><div><p title=">">x';
    expect(documentDepth(html)).toBeGreaterThanOrEqual(parserDepth(html));
  });

  it('never counts shallower than a spec parser, on generated tag soup', () => {
    const names = [
      ...'div p b i a font nobr form table tbody tr td th span ul li select option button h1 center'.split(
        ' ',
      ),
      ...'svg g math template caption dl dt dd object em strong u s code small applet marquee body'.split(
        ' ',
      ),
      ...'html head frameset noscript iframe textarea style title script plaintext xmp img br hr input'.split(
        ' ',
      ),
    ];
    const token = fc.oneof(
      fc.constantFrom(...names).map((n) => `<${n}>`),
      fc.constantFrom(...names).map((n) => `</${n}>`),
      fc.constantFrom(
        ...['x', ' ', '<!-- c -->', '<!-->', '<!--->', '<div a=b"c>', "<div a=b'c>", '<div "a>', '<div/>'],
        ...['<g/>', '"', "'", '>', '<p title=">">', '<!x>', '<?x>', '</ div>', '<b id=1>', '<b id=2>'],
      ),
    );
    fc.assert(
      fc.property(fc.array(token, { maxLength: 60 }), (tokens) => {
        const html = tokens.join('');
        expect(documentDepth(html)).toBeGreaterThanOrEqual(parserDepth(html));
      }),
      { numRuns: 3_000 },
    );
  });
});
