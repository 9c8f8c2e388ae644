import {
  Context,
  EchoTag,
  evalToken,
  ForTag,
  Liquid,
  Output,
  TablerowTag,
  Token,
  toValueSync,
  TypeGuards,
  type Emitter,
  type LiquidOptions,
  type Template,
} from 'liquidjs';
import { PrepareError } from '../prepare-error.ts';
import type { FillOptions, Filled } from './filled.ts';
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
 * Liquid (liquidjs 10) merge tags, sandboxed: own properties only (`ownPropertyOnly`), output
 * HTML-escaped like Handlebars' `{{ }}` (`| raw` opts out), and no files: `include`, `render` and
 * `layout` are replaced by tags that refuse at parse time, and the file system it is given answers
 * nothing. Paths naming a property every object inherits are refused before rendering. The CPU
 * budget is the transform pool's (an endless `{% for %}` is stopped with the process).
 *
 * Unfilled tags are what the render itself looked up for an output and did not find
 * (`ReadingContext` below); the static analysis is only for the names a template may not read.
 */

class FileNotAllowed extends Error {}

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
  yield* readCollection(loop.collection, ctx);
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

/** Marks the outputs of a parse whose lookups are reported (all but those with a `default` filter). */
function watchOutputs(templates: Template[]): void {
  for (const template of templates) {
    if (template instanceof Output || template instanceof EchoTag) {
      const filters = (template as Output).value?.filters ?? [];
      if (filters.some((f) => f.name === 'default')) continue;
      const render = template.render.bind(template);
      template.render = (ctx, emitter) =>
        reading(ctx, () => render(ctx, emitter) as IterableIterator<unknown>);
    } else if (template.children) {
      watchOutputs(toValueSync(template.children(false, true)));
    }
  }
}

/** HTML sources get escaped values; the subject, plain text, gets them as they are. */
const htmlEngine = new Liquid({ ...options, outputEscape: 'escape' });
const plainEngine = new Liquid(options);

for (const engine of [htmlEngine, plainEngine]) {
  engine.registerTag('for', CountedFor);
  engine.registerTag('tablerow', CountedTablerow);
}
for (const [tag, each] of ['include', 'render', 'layout'].flatMap((t) =>
  [htmlEngine, plainEngine].map((e) => [t, e] as const),
)) {
  each.registerTag(tag, {
    parse(token) {
      const [line] = token.getPosition();
      throw templateNotAllowed(
        `{% ${tag} %} is not available: there are no files to include. Put their content in the template.`,
        line ?? 1,
      );
    },
    render() {
      return '';
    },
  });
}

/** Our own error inside liquidjs's wrappers (a refused tag, a loop stopped for its size). */
const prepareErrorIn = (err: unknown) => inErrorChain(err, (at) => at.name === 'PrepareError');

function lineOf(err: unknown): number | null {
  const match = /line:(\d+)/.exec(err instanceof Error ? err.message : '');
  return match ? Number(match[1]) : null;
}

export function fillLiquid(
  source: string,
  data: Record<string, unknown>,
  { escape = true }: FillOptions = {},
): Filled {
  const engine = escape ? htmlEngine : plainEngine;
  let templates: Template[];
  try {
    templates = engine.parse(source);
  } catch (err) {
    const refused = prepareErrorIn(err);
    if (refused) throw refused;
    throw templateInvalid('Liquid', reasonOf(err).replace(/, (file:.*)?line:\d+, col:\d+$/, ''), lineOf(err));
  }

  const analysis = engine.analyzeSync(templates, { partials: false });
  for (const variables of Object.values(analysis.variables)) {
    for (const variable of variables) {
      const bad = variable.segments.find((segment) => isForbiddenName(segment as string | number));
      if (bad !== undefined) throw prototypeAccess(String(bad), variable.location.row);
    }
  }
  watchOutputs(templates);
  const ctx = new ReadingContext(data, engine.options, { sync: true }, { liquid: engine });
  let output: string;
  try {
    output = String(toValueSync(engine.renderer.renderTemplates(templates, ctx)));
  } catch (err) {
    const stopped = prepareErrorIn(err);
    if (stopped) throw stopped;
    const tooLarge = outOfRoom(err);
    if (tooLarge) throw tooLarge;
    if (/^memory alloc limit exceeded/.test(reasonOf(err))) throw overMemoryLimit(lineOf(err));
    throw templateInvalid('Liquid', reasonOf(err).replace(/, (file:.*)?line:\d+, col:\d+$/, ''), lineOf(err));
  }
  return { output, unfilled: [...ctx.missing] };
}
