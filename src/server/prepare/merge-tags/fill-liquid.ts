import {
  Context,
  EchoTag,
  evalToken,
  filters,
  ForTag,
  Liquid,
  Output,
  Parser,
  TablerowTag,
  Token,
  toValue,
  toValueSync,
  TypeGuards,
  type Emitter,
  type LiquidOptions,
  type Template,
  type TopLevelToken,
} from 'liquidjs';
import { PrepareError } from '../prepare-error.ts';
import type { FillOptions, Filled } from './filled.ts';
import { htmlCommentsHidden } from './html-comments.ts';
import { keepMarkup, markLiterals, writtenAsHtml, type FilterImpl } from './liquid-markup.ts';
import { seededRandom } from '../seeded-random.ts';
import { outOfStack, refuseDeepLiquid } from './template-bounds.ts';
import {
  inErrorChain,
  isForbiddenName,
  outOfRoom,
  outputCounter,
  prototypeAccess,
  reasonOf,
  templateInvalid,
  templateNotAllowed,
} from './template-problem.ts';

/**
 * Liquid (liquidjs 10) merge tags, sandboxed: own properties only (`ownPropertyOnly`), values
 * HTML-escaped like Handlebars' `{{ }}` (`| raw` opts out) while the markup the template makes
 * stays markup (liquid-markup.ts), and no files: `include`, `render` and `layout` are replaced by
 * tags that refuse at parse time, and the file system it is given answers nothing. Paths naming a
 * property every object inherits are refused before rendering, and blocks nested too deeply before
 * parsing (template-bounds.ts). The CPU budget is the transform pool's (an endless `{% for %}` is
 * stopped with the process).
 *
 * Unfilled tags are what the render itself looked up for an output and did not find
 * (`ReadingContext` below); the static analysis is only for the names a template may not read.
 *
 * The same source and data fill to the same bytes, at preview and at send
 * (docs/decisions/0115-merge-tags-same-bytes-and-bounded.md): "now" and "today" are the sample
 * data's `now` (`pinnedNow`), `sample` draws from a generator seeded by the email, and dates are
 * shown in UTC and in English wherever the fill runs.
 */

class FileNotAllowed extends Error {}

/** `include`, `render` or `layout` met while parsing, at its line. */
class RefusedTag extends Error {
  constructor(
    readonly tag: string,
    readonly line: number,
  ) {
    super(`{% ${tag} %} is not available`);
  }
}

/**
 * What ranges, filters and assigns may allocate in one render, in liquidjs's units (items and
 * characters; output is not counted): far above an email's needs, far below what exhausts a
 * transform process, where a `(1..100000000)` range would build its array and crash it.
 */
const MEMORY_LIMIT = 8_000_000;

function overMemoryLimit(line: number | null): PrepareError {
  const message =
    'ranges, filters and assigns may make at most 8 million items and characters in all. Check for a loop that repeats too much.';
  return new PrepareError(
    'template_too_large',
    `The Liquid merge tags use more memory than a template may${line ? ` (line ${line})` : ''}: ${message}`,
    [{ line: line ?? 1, message }],
  );
}

/**
 * liquidjs finds a token's line by counting characters from the start of the source, once per
 * variable its static analysis reports: quadratic, 0.6 s for 1,200 tags in 44 KB (measured here).
 * The same answer from an index of the source's line starts, kept for the last source seen.
 */
let indexed: { input: string; newlines: number[] } | undefined;
function newlinesOf(input: string): number[] {
  if (indexed?.input !== input) {
    const newlines: number[] = [];
    for (let i = input.indexOf('\n'); i !== -1; i = input.indexOf('\n', i + 1)) newlines.push(i);
    indexed = { input, newlines };
  }
  return indexed.newlines;
}
Token.prototype.getPosition = function getPosition(this: Token): [number, number] {
  const newlines = newlinesOf(this.input);
  // How many newlines come before `begin`.
  let low = 0;
  let high = newlines.length;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (newlines[mid]! < this.begin) low = mid + 1;
    else high = mid;
  }
  const lastNewline = low === 0 ? -1 : newlines[low - 1]!;
  return [low + 1, this.begin - lastNewline];
};

/**
 * liquidjs's parser takes each token from the front of the array of the source's tokens with
 * `shift()`, which copies the rest of an array that large (V8 moves a small array's start instead):
 * quadratic, 2.9 s to parse 80,000 tags (measured here). The same tokens in a queue whose `shift()`
 * moves an index, for our engines' parsers. liquidjs's parser and tags only take `shift()` and read
 * `length` of the tokens that remain (10.30; `merge-tags.test.ts` holds every tag's output to a
 * stock engine's).
 */
class TokenQueue {
  private next = 0;
  constructor(private readonly tokens: TopLevelToken[]) {}
  get length(): number {
    return this.tokens.length - this.next;
  }
  shift(): TopLevelToken | undefined {
    return this.next < this.tokens.length ? this.tokens[this.next++] : undefined;
  }
}
function queueParser(engine: Liquid, lines: boolean): Parser {
  const parser = new Parser(engine);
  const parseTokens = parser.parseTokens.bind(parser);
  let first = true;
  parser.parseTokens = (tokens) => {
    if (!Array.isArray(tokens)) return parseTokens(tokens);
    // The source's tokens, before any is parsed (a `{% liquid %}` tag's come later, read already).
    if (first) refuseDeepLiquid(tokens, engine.options, lines);
    first = false;
    return parseTokens(new TokenQueue(tokens) as unknown as TopLevelToken[]);
  };
  return parser;
}

const noFiles = {
  exists: () => Promise.resolve(false),
  existsSync: () => false,
  readFile: () => Promise.reject(new FileNotAllowed('no files')),
  readFileSync: () => {
    throw new FileNotAllowed('no files');
  },
  resolve: (_root: string, file: string) => file,
};

const options: LiquidOptions = {
  // Dates are shown in UTC and named in English wherever the fill runs: liquidjs would take the
  // process's zone and locale, and a preview and its send may run on different hosts.
  timezoneOffset: 'UTC',
  locale: 'en-US',
  ownPropertyOnly: true,
  strictFilters: true,
  fs: noFiles,
  root: [],
  partials: [],
  layouts: [],
  relativeReference: false,
  cache: false,
  memoryLimit: MEMORY_LIMIT,
};

/**
 * What one loop writes, counted on its way to the output (`outputCounter`): past the HTML's size
 * limit it stops. Only `for` and `tablerow` repeat (there are no includes), and what they write
 * ends up in the output (or in a `capture`d variable, which no email needs that large). The writes
 * reach the render's own emitter unchanged; a value that is not a string counts as its String().
 * Each loop's collection is also read for the unfilled tags (`readCollection`).
 */
function* countedLoop<R>(
  loop: ForTag | TablerowTag,
  ctx: Context,
  emitter: Emitter,
  render: (emitter: Emitter) => Generator<unknown, R>,
): Generator<unknown, R> {
  const hidden = ctx instanceof ReadingContext && ctx.fill.hidden(loop.token.begin);
  if (!hidden) yield* readCollection(loop.collection, ctx);
  const count = outputCounter();
  const write = (html: unknown) => {
    count(typeof html === 'string' ? html.length : String(html ?? '').length);
    emitter.write(html);
  };
  return yield* render({ write } as Emitter);
}
class CountedFor extends ForTag {
  override *render(ctx: Context, emitter: Emitter) {
    return yield* countedLoop(this, ctx, emitter, (counting) => super.render(ctx, counting));
  }
}
class CountedTablerow extends TablerowTag {
  override *render(ctx: Context, emitter: Emitter) {
    return yield* countedLoop(this, ctx, emitter, (counting) => super.render(ctx, counting));
  }
}

/**
 * The unfilled tags are what the render itself looked up and did not find while writing an
 * output (`{{ … }}`, `{% echo %}`), or as a loop's collection: what the reader sees as a blank,
 * or a loop over nothing. Not a condition (`{% if coupon %}`: missing data is what conditions
 * test), not an output with a `default` filter, not a branch the sample data does not take, and
 * Liquid's own `first`, `last` and `size` count as found, as liquidjs reads them.
 */
class ReadingContext extends Context {
  readonly missing = new Set<string>();
  /** Above 0 while an output that reports what it misses is evaluated. */
  reading = 0;
  /** What the filters of this fill read (set by `fillLiquid` before it renders). */
  fill!: FillState;

  override *_getFromScope(
    scope: unknown,
    paths: Parameters<Context['_getFromScope']>[1],
    strictVariables?: boolean,
  ): IterableIterator<unknown> {
    const value: unknown = yield* super._getFromScope(scope, paths, strictVariables);
    if (this.reading > 0 && value === undefined) this.missing.add(pathText(paths));
    return value;
  }
}

/** `items[0].title` for ['items', 0, 'title']. */
function pathText(paths: Parameters<Context['_getFromScope']>[1]): string {
  if (typeof paths === 'string') return paths;
  return paths
    .map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`))
    .join('');
}

function* reading<T>(ctx: Context, read: () => IterableIterator<T>): IterableIterator<T> {
  if (!(ctx instanceof ReadingContext)) return yield* read();
  ctx.reading++;
  try {
    return yield* read();
  } finally {
    ctx.reading--;
  }
}

/** A loop's collection read as a plain path (a range is left to the loop: it may be large). */
function* readCollection(collection: ForTag['collection'], ctx: Context): IterableIterator<unknown> {
  if (TypeGuards.isPropertyAccessToken(collection)) {
    yield* reading(ctx, function* () {
      return yield evalToken(collection, ctx);
    });
  }
}

/**
 * Marks the outputs of a parse whose lookups are reported: all but those with a `default` filter
 * and those in an HTML comment no reader sees (`hidden`, html-comments.ts).
 */
function watchOutputs(templates: Template[], hidden: (offset: number) => boolean): void {
  for (const template of templates) {
    if (template instanceof Output || template instanceof EchoTag) {
      const filters = (template as Output).value?.filters ?? [];
      if (filters.some((f) => f.name === 'default') || hidden(template.token.begin)) continue;
      const render = template.render.bind(template);
      template.render = (ctx, emitter) =>
        reading(ctx, () => render(ctx, emitter) as IterableIterator<unknown>);
    } else if (template.children) {
      watchOutputs(toValueSync(template.children(false, true)), hidden);
    }
  }
}

interface FillState {
  /** The sample data's `now`, as given ("now" and "today", `pinnedNow`); undefined when it has none. */
  now: unknown;
  /** Draws for `sample`: seeded by the source and the data. */
  random: () => number;
  /** Name lines in problems (FillOptions.lines). */
  lines: boolean;
  /** Whether an offset of the source is in an HTML comment no reader sees (html-comments.ts). */
  hidden: (offset: number) => boolean;
}

/** The fill a filter runs in. */
function fillOf(filter: FilterImpl): FillState {
  if (!(filter.context instanceof ReadingContext)) throw new Error('a filter outside a fill');
  return filter.context.fill;
}

function lineOfFilter(filter: FilterImpl): number | null {
  return fillOf(filter).lines ? (filter.token.getPosition()[0] ?? null) : null;
}

/**
 * `"now"` and `"today"` are, to liquidjs's date filters, the clock at the moment of filling: a
 * preview and its send, filled seconds or days apart, would differ, and the preview would not be
 * what is sent. They are the sample data's `now` instead (a date as those filters read one: text
 * such as "2026-12-24T09:00:00Z", or seconds since 1970), the moment the user chooses to see the
 * email at; without one the fill is refused with the way out, rather than showing a made-up date.
 */
const DATE_FILTERS = ['date', 'date_to_xmlschema', 'date_to_rfc822', 'date_to_string', 'date_to_long_string'];
const NOW_EXAMPLE = '"now": "2026-12-24T09:00:00Z"';

function pinnedNow(filter: FilterImpl, input: unknown): unknown {
  const value: unknown = toValue(input);
  if (value !== 'now' && value !== 'today') return input;
  const { now } = fillOf(filter);
  if (now === undefined) {
    throw templateNotAllowed(
      `"${value}" is the moment the email is filled, so the preview and the send would show different dates and times. Give the moment to show in the sample data, as {${NOW_EXAMPLE}}; "now" and "today" then read it.`,
      lineOfFilter(filter),
    );
  }
  if (!isDate(now)) {
    throw templateNotAllowed(
      `"${value}" reads the sample data's "now", which is not a date: write it as ${NOW_EXAMPLE} or as seconds since 1970.`,
      lineOfFilter(filter),
    );
  }
  return now;
}

/** A value liquidjs's date filters read as a date (their parseDate), "now" and "today" aside. */
function isDate(value: unknown): boolean {
  if (typeof value === 'number')
    return Number.isFinite(value) && !Number.isNaN(new Date(value * 1000).getTime());
  if (typeof value !== 'string' || value === 'now' || value === 'today') return false;
  return !Number.isNaN(new Date(/^\d+$/.test(value) ? Number(value) * 1000 : value).getTime());
}

/**
 * `sample` draws from `Math.random` in liquidjs: a different pick at preview and at send. Here it is
 * the same shuffle (Fisher–Yates) drawn from a generator seeded by the source and the sample data,
 * so the same email picks the same items; several `sample`s draw in turn.
 */
function sample(this: FilterImpl, input: unknown, count: unknown = 1): unknown {
  const value: unknown = toValue(input);
  if (value === null || value === undefined) return [];
  // A list's items, or the characters of anything else as text (liquidjs's `stringify`).
  const items: unknown[] = Array.isArray(value) ? [...(value as unknown[])] : [...String(value)];
  this.context.memoryLimit.use(items.length);
  const random = fillOf(this).random;
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return count === 1 ? items[0] : items.slice(0, count as number);
}

/**
 * HTML sources get escaped values and the template's own markup as written (liquid-markup.ts); the
 * subject, plain text, gets them as they are.
 */
const htmlEngine = new Liquid({ ...options, outputEscape: writtenAsHtml });
const plainEngine = new Liquid(options);

for (const engine of [htmlEngine, plainEngine]) {
  engine.registerTag('for', CountedFor);
  engine.registerTag('tablerow', CountedTablerow);
  for (const name of DATE_FILTERS) {
    const stock = filters[name] as (this: FilterImpl, ...args: unknown[]) => unknown;
    engine.registerFilter(name, function dateOf(this: FilterImpl, input: unknown, ...args: unknown[]) {
      return stock.call(this, pinnedNow(this, input), ...args);
    });
  }
  engine.registerFilter('sample', sample);
}
keepMarkup(htmlEngine);
for (const [tag, each] of ['include', 'render', 'layout'].flatMap((t) =>
  [htmlEngine, plainEngine].map((e) => [t, e] as const),
)) {
  each.registerTag(tag, {
    parse(token) {
      throw new RefusedTag(tag, token.getPosition()[0] ?? 1);
    },
    render() {
      return '';
    },
  });
}

/** Our own error inside liquidjs's wrappers (a loop stopped for its size, "now" refused). */
const prepareErrorIn = (err: unknown) => inErrorChain(err, (at) => at.name === 'PrepareError');

export function fillLiquid(
  source: string,
  data: Record<string, unknown>,
  { escape = true, lines = escape }: FillOptions = {},
): Filled {
  const engine = escape ? htmlEngine : plainEngine;
  const lineOf = (err: unknown): number | null => {
    const match = /line:(\d+)/.exec(err instanceof Error ? err.message : '');
    return match && lines ? Number(match[1]) : null;
  };
  let templates: Template[];
  try {
    templates = queueParser(engine, lines).parse(source);
  } catch (err) {
    const stopped = prepareErrorIn(err) ?? outOfStack(err, 'liquid');
    if (stopped) throw stopped;
    const refused = inErrorChain(err, (at) => at instanceof RefusedTag) as RefusedTag | undefined;
    if (refused) {
      throw templateNotAllowed(
        `{% ${refused.tag} %} is not available: there are no files to include. Put their content in the template.`,
        lines ? refused.line : null,
      );
    }
    throw templateInvalid('Liquid', reasonOf(err).replace(/, (file:.*)?line:\d+, col:\d+$/, ''), lineOf(err));
  }

  const analysis = engine.analyzeSync(templates, { partials: false });
  for (const variables of Object.values(analysis.variables)) {
    for (const variable of variables) {
      const bad = variable.segments.find((segment) => isForbiddenName(segment as string | number));
      if (bad !== undefined) throw prototypeAccess(String(bad), lines ? variable.location.row : null);
    }
  }
  if (escape) markLiterals(templates);
  const hidden = (escape && htmlCommentsHidden(source, 'liquid')) || (() => false);
  watchOutputs(templates, hidden);
  const ctx = new ReadingContext(data, engine.options, { sync: true }, { liquid: engine });
  ctx.fill = {
    now: Object.prototype.hasOwnProperty.call(data, 'now') ? data.now : undefined,
    random: seededRandom(`${source}\u0000${JSON.stringify(data)}`),
    lines,
    hidden,
  };
  let output: string;
  try {
    output = String(toValueSync(engine.renderer.renderTemplates(templates, ctx)));
  } catch (err) {
    const stopped = prepareErrorIn(err) ?? outOfStack(err, 'liquid');
    if (stopped) throw stopped;
    const tooLarge = outOfRoom(err);
    if (tooLarge) throw tooLarge;
    if (/^memory alloc limit exceeded/.test(reasonOf(err))) throw overMemoryLimit(lineOf(err));
    throw templateInvalid('Liquid', reasonOf(err).replace(/, (file:.*)?line:\d+, col:\d+$/, ''), lineOf(err));
  }
  return { output, unfilled: [...ctx.missing] };
}
