import { describe, expect, it } from 'vitest';
import { styleAttributes } from './style-attributes.ts';

const values = (html: string) => styleAttributes(html).map((a) => html.slice(a.start, a.end));

describe('styleAttributes', () => {
  it('finds the style attributes of start tags, quoted, unquoted or bare, the first of a tag only', () => {
    expect(
      values(
        `<p style="a:1">x</p><td STYLE='b:2' style="c:3"><br style=d:4><i style>y</i><b data-style="e">z</b>`,
      ),
    ).toEqual([`style="a:1"`, `STYLE='b:2'`, 'style=d:4']);
    expect(styleAttributes(`<p style = "a:1" >`)).toEqual([{ start: 3, end: 16, value: 'a:1' }]);
  });

  it('ends an unquoted value where the tokenizer does, so no style= inside another value is taken', () => {
    // title's unquoted value runs to the space before onclick: one attribute, no style of its own.
    const html = `<p title=a"b"style='x:&apos;a&quot;onclick=alert(1)//&apos;'>Hi</p>`;
    expect(values(html)).toEqual([]);
    expect(values(`<p title="style='a:1'" style="b:2">`)).toEqual([`style="b:2"`]);
  });

  it('finds nothing in comments, bogus comments, CDATA, raw text or a tag the input ends inside', () => {
    for (const html of [
      `<!-- <p style="a:1"> -->`,
      `<!x <p style="a:1">`,
      `<? <p style="a:1">`,
      `<svg><![CDATA[<b style="f:&quot;a'b&quot;">]]></svg>`,
      `<script>var s = '<p style="a:1">';</script>`,
      `<textarea><p style="a:1"></textarea>`,
      `<title><p style="a:1"></title>`,
      `<p style="a:1"`,
      `<p style="a:1`,
    ])
      expect(values(html), html).toEqual([]);
    // What comes after each is read again.
    expect(values(`<!-- x --><p style="a:1"><!--><b style="b:2"><title>t</TITLE ><i style="c:3">`)).toEqual([
      `style="a:1"`,
      `style="b:2"`,
      `style="c:3"`,
    ]);
    expect(values(`</p style="x:1"><p style="a:1">`)).toEqual([`style="a:1"`]);
  });

  it('reads in one pass whatever the input: tags that never end, quotes that never close', () => {
    const inputs = [
      `<a${'x'.repeat(1_000_000)}`,
      '<a x="'.repeat(200_000),
      '<a '.repeat(300_000),
      `<p style="${'\'"'.repeat(300_000)}">`,
      '<!--'.repeat(250_000),
      '<title>'.repeat(150_000),
    ];
    // A quadratic reading of any of these megabytes takes minutes, past the test's time limit.
    for (const html of inputs) expect(styleAttributes(html).length, html.slice(0, 20)).toBeLessThanOrEqual(1);
  });
});
