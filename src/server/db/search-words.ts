/**
 * The words of an email's HTML, indexed for history search in place of the HTML itself
 * (docs/decisions/0112-search-index-on-the-words.md).
 *
 * History search matches `html ILIKE '%q%'`. A trigram index on the HTML made PostgreSQL extract
 * the trigrams of every sent HTML, about 0.8 ms of its CPU per 12 KB, a third of a send's database
 * time. The index is on `emails.search_words` instead: the distinct words of the HTML (runs of
 * letters, digits and marks), written once each, about a tenth of its size on real templates,
 * made here in the transform process. A search asks the words first and the HTML after:
 *
 * if the HTML contains the search (ignoring case), each word of the search (a run of letters,
 * digits and marks in it) lies inside one word of the HTML, so `search_words` contains it too.
 *
 * So the words only ever narrow the rows the HTML is compared with; what matches is decided by
 * the HTML, as before. Case folding keeps this true: it maps a letter to a letter, one code point
 * to one (the embedded cluster's simple case mapping, docs/decisions/0109-unicode-case-in-the-embedded-cluster.md).
 */

const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/** The distinct words of this HTML, in their first order, separated by spaces. */
export function searchWords(html: string): string {
  return [...new Set(html.match(WORD))].join(' ');
}

/** pg_trgm needs three characters to narrow a `LIKE '%…%'` by its index. */
const MIN_TOKEN = 3;
/** The longest few narrow enough; every extra condition is one more index lookup. */
const MAX_TOKENS = 4;

/**
 * The words of a search worth asking `search_words` for: distinct, at least three characters,
 * the longest first, at most four. Empty when none is (a search for "@" or "a b"): then the HTML
 * alone decides, without the index, as any search too short for trigrams did before.
 */
export function searchTokens(q: string): string[] {
  return [...new Set(q.match(WORD))]
    .filter((word) => [...word].length >= MIN_TOKEN)
    .sort((a, b) => b.length - a.length)
    .slice(0, MAX_TOKENS);
}
