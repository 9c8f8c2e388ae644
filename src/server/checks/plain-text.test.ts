import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { carries, carriesByScan, linkRuns } from './plain-text.ts';

/** Pieces that make texts and URLs hard to tell apart: prefixes of each other, punctuation, brackets. */
const piece = fc.constantFrom(
  'http',
  's://',
  'https://example.com',
  'http://a.b',
  '/',
  '1',
  '12',
  '.html',
  '.',
  ',',
  ':',
  '!',
  "'",
  '?utm=1',
  '&amp;',
  '#top',
  '(',
  ')',
  '[',
  ']',
  ' ',
  '\n',
  'x',
  'é',
);
const chunk = fc.array(piece, { maxLength: 12 }).map((parts) => parts.join(''));

describe('plain-text link lookup', () => {
  it('answers exactly what a scan of the text answers, for any text and link', () => {
    fc.assert(
      fc.property(
        fc.array(chunk, { maxLength: 8 }),
        fc.array(chunk, { minLength: 1, maxLength: 6 }),
        (textParts, urlTails) => {
          const urls = urlTails.map((tail) => `http${tail}`);
          // Every URL stands somewhere in the text, in some surrounding.
          const text = textParts.map((part, i) => `${part}${urls[i % urls.length]}`).join('');
          const runs = linkRuns(text);
          for (const url of [...urls, 'https://example.com/1', 'https://example.com/']) {
            expect(carries(text, runs, url), `${JSON.stringify(url)} in ${JSON.stringify(text)}`).toBe(
              carriesByScan(text, url),
            );
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
