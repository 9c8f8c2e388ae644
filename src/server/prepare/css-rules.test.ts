import { describe, expect, it } from 'vitest';
import { keepReason, splitCss, splitSelectors } from './css-rules.ts';

describe('splitCss', () => {
  it('splits rules and at-rules, respecting strings, comments and nested blocks', () => {
    const css = `
      <!-- p { color: red } -->
      @import url("a;b.css");
      /* a } comment { */
      a[title="x,{y}"], .b::after { content: "}" }
      @media (max-width: 600px) { .c { width: 100% } .d { width: 50% } }
      .e { background: url(data:image/png;base64,AAA=) }`;
    expect(splitCss(css)).toEqual([
      { kind: 'rule', selectors: ['p'], block: '{ color: red }', text: 'p { color: red }' },
      { kind: 'at-rule', text: '@import url("a;b.css");' },
      {
        kind: 'rule',
        selectors: ['a[title="x,{y}"]', '.b::after'],
        block: '{ content: "}" }',
        text: 'a[title="x,{y}"], .b::after { content: "}" }',
      },
      { kind: 'at-rule', text: '@media (max-width: 600px) { .c { width: 100% } .d { width: 50% } }' },
      {
        kind: 'rule',
        selectors: ['.e'],
        block: '{ background: url(data:image/png;base64,AAA=) }',
        text: '.e { background: url(data:image/png;base64,AAA=) }',
      },
    ]);
  });

  it('drops what browsers drop: stray braces and an unfinished rule', () => {
    expect(splitCss('} p { color: red } .x')).toEqual([
      { kind: 'rule', selectors: ['p'], block: '{ color: red }', text: 'p { color: red }' },
    ]);
  });

  it('splits selector lists at top-level commas only', () => {
    expect(splitSelectors('a:is(.b, .c), d[x=","] , e')).toEqual(['a:is(.b, .c)', 'd[x=","]', 'e']);
  });
});

describe('keepReason', () => {
  it.each([
    ['*', 'universal'],
    ['* [lang^=x]', 'universal'],
    ['div > *', 'universal'],
    ['*[x-apple-data-detectors]', 'universal'],
    ['a:hover', 'pseudo'],
    ['.btn::after', 'pseudo'],
    ['p:first-line', 'pseudo'],
    ['input:focus-visible', 'pseudo'],
    ['.x', null],
    ['a[href*="x"]', null],
    ['p:first-child', null],
    ['li:nth-child(2n+1)', null],
    ['a:not(:hover)', null],
  ])('%s → %s', (selector, reason) => {
    expect(keepReason(selector)).toBe(reason);
  });

  it('keeps html and body rules of a fragment for the client, and inlines them in a document', () => {
    expect(keepReason('body', { fragment: true })).toBe('client-body');
    expect(keepReason('.wrap body', { fragment: true })).toBe('client-body');
    expect(keepReason('body .x', { fragment: true })).toBe(null);
    expect(keepReason('body', { fragment: false })).toBe(null);
  });
});
