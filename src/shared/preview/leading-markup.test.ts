import { describe, expect, it } from 'vitest';
import { afterLeadingMarkup, leadingDoctypeEnd } from './leading-markup.ts';

describe('leading markup, as the HTML parser reads it before the doctype', () => {
  it('finds the doctype after a BOM, white space, comments and bogus comments', () => {
    const doctype = '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN">';
    for (const before of [
      '',
      '\uFEFF',
      ' \t\r\n\f',
      '<!-- a -- b -->',
      '<?xml version="1.0"?>\n',
      '<!-->',
      '<!--->',
      '<!-- x --!>',
      '<![CDATA[x]]>',
    ]) {
      expect(leadingDoctypeEnd(`${before}${doctype}<html>`), JSON.stringify(before)).toBe(
        before.length + doctype.length,
      );
    }
    expect(leadingDoctypeEnd('<!doctype html>')).toBe(15);
  });

  it('finds none where the parser has left its initial state: text, or an element, first', () => {
    for (const html of [
      '<html><!doctype html>',
      '\u00a0<!doctype html>',
      '\u000b<!doctype html>',
      '<!--><p>x</p><!-- --><!doctype html>',
      '<!---><title>--><!doctype html></title>',
      '<!-- a --!><p>y</p><!-- --><!doctype html>',
      '<!-- never closed <!doctype html>',
    ]) {
      expect(leadingDoctypeEnd(html), JSON.stringify(html)).toBe(-1);
    }
  });

  it('reads a run of comments in one pass however long it is', () => {
    // 2^n ways to split this for a lazy comment in a repeated group: 23 s at n = 30.
    expect(leadingDoctypeEnd(`${'<!----><?x>'.repeat(100_000)}<p>hello</p>`)).toBe(-1);
    const run = '<!----><?x>'.repeat(100_000);
    expect(afterLeadingMarkup(`${run}<mjml>`)).toBe(run.length);
  });
});
