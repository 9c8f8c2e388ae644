import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { searchTokens, searchWords } from './search-words.ts';

/** Characters an email's HTML is made of, the awkward ones over-represented. */
const CHARS = [
  ...'abcXYZ019',
  ...'éÉüÜßçÇñ',
  ...'ΣσςΑαΩω',
  ...'мирМИР',
  '\u0301', // a combining acute accent
  '中',
  '日',
  ...' \n\t<>/="\'-_.,;:!?&#%@()[]{}|\\*+~^$`',
  ...'«»—–…·\u00a0\u2009',
  '😀',
];
const text = fc.array(fc.constantFrom(...CHARS), { maxLength: 60 }).map((cs) => cs.join(''));

/** A search for part of `html`, as someone types it: any stretch, its letters in either case. */
const searchIn = (html: string) =>
  fc
    .tuple(fc.nat(html.length), fc.nat(html.length), fc.array(fc.boolean(), { minLength: html.length }))
    .map(([a, b, upper]) =>
      [...html.slice(Math.min(a, b), Math.max(a, b))]
        .map((c, i) => {
          // Only where the case mapping keeps one code point, as PostgreSQL's simple mapping does.
          const flipped = upper[i] ? c.toUpperCase() : c.toLowerCase();
          return [...flipped].length === 1 && fold(flipped) === fold(c) ? flipped : c;
        })
        .join(''),
    );

/** Case folded one code point at a time, as PostgreSQL's simple case mapping does (no final sigma). */
const fold = (s: string) => [...s].map((c) => c.toLowerCase()).join('');

/** The trigger's words (migration 0023): split at ASCII characters other than letters and digits only. */
const triggerWords = (html: string) =>
  [...new Set(html.split(/[^A-Za-z0-9\u0080-\u{10FFFF}]+/u).filter((w) => w !== ''))].join(' ');

describe('search words', () => {
  it('keeps each word of the HTML once, in its first order, tags and punctuation dropped', () => {
    expect(searchWords('<p class="lead">Spring sale — spring SALE, 50% off: café!</p><p>Spring</p>')).toBe(
      'p class lead Spring sale spring SALE 50 off café',
    );
    expect(searchWords('<a href="https://shop.example.com/items/42?utm=news">x</a>')).toBe(
      'a href https shop example com items 42 utm news x',
    );
    // Combining marks stay inside their word; other scripts are words too.
    expect(searchWords('<b>cafe\u0301 мир 日本</b>')).toBe('b cafe\u0301 мир 日本');
    expect(searchWords('<br/><!-- -->')).toBe('br');
  });

  it('asks for the longest distinct words of a search of at least three characters, four at most', () => {
    expect(searchTokens('spring collection')).toEqual(['collection', 'spring']);
    expect(searchTokens('a@b.com')).toEqual(['com']);
    expect(searchTokens('@ a b 12')).toEqual([]);
    expect(searchTokens('one two three four five sixsix')).toEqual(['sixsix', 'three', 'four', 'five']);
    expect(searchTokens('ñoño ñoño')).toEqual(['ñoño']);
    // Characters, not UTF-16 units: an emoji is no word, an astral letter counts once.
    expect(searchTokens('😀😀😀')).toEqual([]);
  });

  it('narrows without losing: every word of a search found in the HTML is in its words, and in the trigger’s', () => {
    fc.assert(
      fc.property(
        text.chain((html) => fc.tuple(fc.constant(html), searchIn(html))),
        ([html, q]) => {
          const ours = fold(searchWords(html));
          const theirs = fold(triggerWords(html));
          for (const token of searchTokens(q)) {
            expect(ours).toContain(fold(token));
            expect(theirs).toContain(fold(token));
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
