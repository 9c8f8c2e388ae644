import {
  AssignTag,
  CaptureTag,
  CycleTag,
  Drop,
  EchoTag,
  evalToken,
  filters,
  Output,
  toValue,
  toValueSync,
  TypeGuards,
  type Context,
  type Emitter,
  type Expression,
  type FilteredValueToken,
  type FilterImplOptions,
  type Liquid,
  type Template,
  type Token,
  Value,
} from 'liquidjs';

/**
 * Which Liquid output is HTML the template made, and which is a value to escape
 * (docs/decisions/0068-merge-tags-sandboxed.md, amended 2026-11-28). Stock Liquid escapes
 * nothing; liquidjs's `outputEscape` escapes every output, so HTML the template itself made (a
 * `{% capture %}`d button, `{% assign bold = "<b>Sale</b>" %}`, `newline_to_br`'s `<br />`) was
 * sent as text. Here the author's markup stays markup and only what comes from the sample data is
 * escaped, as Django's autoescaping does (its "safe" strings, literals and `is_safe` filters):
 *
 * - **Markup** is a string literal written in the template (an output's, an echo's, an assign's,
 *   a cycle's or a filter argument), what a `capture` made, and the answers of `escape`,
 *   `escape_once`, `xml_escape` and `newline_to_br` (which escapes a value first). A text without
 *   `&<>"'` reads the same either way and stays a plain string.
 * - Text filters keep their input's markup (`upcase`, `strip`, `slice`…); `append`, `prepend`, the
 *   `replace` filters, `truncate`'s ending and `join`'s separator make markup when the text they
 *   add is markup, escaping the values they combine it with first. Any other filter's answer is a
 *   value.
 * - An output writes markup as it is and escapes anything else (`writtenAsHtml`, the engine's
 *   `outputEscape`).
 *
 * With sample data that has no HTML-special characters, the bytes are stock liquidjs's
 * (`merge-tags.test.ts` compares them).
 */

/** What a filter is called on: its context, token and engine (liquidjs's FilterImpl). */
export type FilterImpl = ThisParameterType<Extract<FilterImplOptions, (...args: never[]) => unknown>>;
type Handler = (this: FilterImpl, input: unknown, ...args: unknown[]) => unknown;

const HTML_SPECIAL = /[&<>"']/;

/** HTML the template made, written as it is; to filters and conditions, its text. */
export class Markup extends Drop {
  readonly #html: string;
  constructor(html: string) {
    super();
    this.#html = html;
  }
  override valueOf(): string {
    return this.#html;
  }
  override toString(): string {
    return this.#html;
  }
  toJSON(): string {
    return this.#html;
  }
  /** `{{ button.size }}` and the like read as they read the text. */
  override liquidMethodMissing(key: string | number, context?: Context): unknown {
    return context ? context.readProperty(this.#html as never, key) : undefined;
  }
}

/** `html` as markup; a plain string when it has nothing to escape (it reads the same). */
export function markup(html: string): string | Markup {
  return HTML_SPECIAL.test(html) ? new Markup(html) : html;
}

const textOf = (value: unknown): unknown => (value instanceof Markup ? value.valueOf() : value);

const stockEscape = filters.escape as Handler;

/** An output as HTML: markup as it is, anything else escaped (liquidjs's `escape`, item by item). */
export function writtenAsHtml(this: FilterImpl, value: unknown): string {
  if (value instanceof Markup) return value.valueOf();
  if (Array.isArray(value)) return value.map((item) => writtenAsHtml.call(this, item)).join('');
  return stockEscape.call(this, value) as string;
}

/** The filter arguments written as string literals with something to escape: the author's markup. */
function isMarkupArgument(filter: FilterImpl, args: unknown[], at: number): boolean {
  const value = args[at];
  if (value instanceof Markup) return true;
  const token = filter.token.args[at];
  return (
    typeof value === 'string' &&
    token !== undefined &&
    !Array.isArray(token) &&
    TypeGuards.isQuotedToken(token) &&
    HTML_SPECIAL.test(value)
  );
}

/** The filters whose answer is HTML whatever their input. */
const ANSWER_HTML = new Set(['escape', 'escape_once', 'xml_escape']);
/** Text filters: markup in, markup out; their arguments are settings, not text they add. */
const KEEP_MARKUP = new Set([
  'capitalize',
  'downcase',
  'upcase',
  'lstrip',
  'rstrip',
  'strip',
  'strip_newlines',
  'squish',
  'normalize_whitespace',
  'strip_html',
  'slice',
  'raw',
]);
/**
 * Filters that build their answer from their input and text they add (`added`: argument indexes),
 * or remove (`patterns`): markup when the input or the added text is markup.
 */
const COMBINING: Record<string, { added: number[]; patterns: number[] }> = {
  append: { added: [0], patterns: [] },
  prepend: { added: [0], patterns: [] },
  replace: { added: [1], patterns: [0] },
  replace_first: { added: [1], patterns: [0] },
  replace_last: { added: [1], patterns: [0] },
  remove: { added: [], patterns: [0] },
  remove_first: { added: [], patterns: [0] },
  remove_last: { added: [], patterns: [0] },
  truncate: { added: [1], patterns: [] },
  truncatewords: { added: [1], patterns: [] },
};

function markupAware(name: string, stock: Handler): Handler {
  const combining = COMBINING[name];
  if (combining) {
    return function combine(this: FilterImpl, input, ...args) {
      const inputIsMarkup = input instanceof Markup;
      if (!inputIsMarkup && !combining.added.some((at) => isMarkupArgument(this, args, at))) {
        return stock.call(this, input, ...args.map(textOf));
      }
      // In HTML: a value is escaped; a pattern is the author's markup only when searched for in
      // markup (in an escaped value, "&" is looked for as "&amp;").
      const given = args.map((arg, at) => {
        if (combining.added.includes(at)) return asHtml(this, arg, isMarkupArgument(this, args, at));
        if (combining.patterns.includes(at)) {
          return asHtml(this, arg, inputIsMarkup && isMarkupArgument(this, args, at));
        }
        return textOf(arg);
      });
      const answer = stock.call(this, asHtml(this, input, inputIsMarkup), ...given);
      return typeof answer === 'string' ? markup(answer) : answer;
    };
  }
  switch (name) {
    case 'newline_to_br':
      return function newlineToBr(this: FilterImpl, input) {
        const html = input instanceof Markup ? input.valueOf() : stockEscape.call(this, input);
        return markup(stock.call(this, html) as string);
      };
    case 'join':
      return function join(this: FilterImpl, input, ...args) {
        const items: unknown[] = Array.isArray(input) ? input : [input];
        if (!items.some((item) => item instanceof Markup) && !isMarkupArgument(this, args, 0)) {
          return stock.call(this, input, ...args);
        }
        const html = items.map((item) => writtenAsHtml.call(this, item));
        const separator = args.length > 0 ? [asHtml(this, args[0], isMarkupArgument(this, args, 0))] : [];
        return markup(stock.call(this, html, ...separator) as string);
      };
    case 'default':
      return function defaultValue(this: FilterImpl, input, ...args) {
        const chosen = stock.call(this, textOf(input), ...args);
        if (args.length > 0 && chosen === args[0]) {
          return isMarkupArgument(this, args, 0) ? markup(String(textOf(chosen))) : chosen;
        }
        return input instanceof Markup && chosen === input.valueOf() ? input : chosen;
      };
    case 'split':
      return function split(this: FilterImpl, input, ...args) {
        const answer = stock.call(this, textOf(input), ...args.map(textOf));
        return input instanceof Markup && Array.isArray(answer)
          ? answer.map((part) => markup(String(part)))
          : answer;
      };
  }
  if (ANSWER_HTML.has(name)) {
    return function answerHtml(this: FilterImpl, input, ...args) {
      return markup(String(stock.call(this, textOf(input), ...args.map(textOf))));
    };
  }
  if (KEEP_MARKUP.has(name)) {
    return function keepMarkup(this: FilterImpl, input, ...args) {
      const answer = stock.call(this, textOf(input), ...args.map(textOf));
      return input instanceof Markup && typeof answer === 'string' ? markup(answer) : answer;
    };
  }
  // Any other filter reads text and answers a value.
  return function value(this: FilterImpl, input, ...args) {
    return stock.call(this, textOf(input), ...args.map(textOf));
  };
}

/** An operand as HTML: markup as written, a value escaped. */
function asHtml(filter: FilterImpl, value: unknown, isMarkup: boolean): string {
  return isMarkup ? String(textOf(value)) : (stockEscape.call(filter, value) as string);
}

/** `{% capture %}` keeps what it made as markup (its values are escaped as they were written). */
class MarkupCapture extends CaptureTag {
  override *render(ctx: Context): Generator<unknown, void, string> {
    const html = yield this.liquid.renderer.renderTemplates(this.templates, ctx);
    ctx.bottom()[this.variable] = markup(html);
  }
}

/** `{% echo %}` writes as an output does (liquidjs escapes its value's text, markup or not). */
class MarkupEcho extends EchoTag {
  override *render(ctx: Context, emitter: Emitter): Generator<unknown, void, unknown> {
    const value = (this as unknown as { value?: Value }).value;
    if (!value) return;
    const answer: unknown = yield value.value(ctx, false);
    emitter.write(
      value.filters.at(-1)?.raw ? toValue(answer) : writtenAsHtml.call(filterCall(ctx, this), answer),
    );
  }
}

/** `{% cycle %}` as liquidjs 10.30 runs it, its candidate written as an output is. */
class MarkupCycle extends CycleTag {
  override *render(ctx: Context): Generator<unknown, unknown, unknown> {
    const { candidates, group } = this as unknown as { candidates: FilteredValueToken[]; group?: Token };
    const name: unknown = yield evalToken(group, ctx);
    const fingerprint = `cycle:${String(name)}:` + candidates.map((c) => c.getText()).join(',');
    const groups = ctx.getRegister('cycle', {}) as Record<string, number>;
    const at = groups[fingerprint] ?? 0;
    groups[fingerprint] = (at + 1) % candidates.length;
    const value = new Value(candidates[at]!, this.liquid);
    const answer: unknown = yield value.value(ctx, false);
    return value.filters.at(-1)?.raw ? toValue(answer) : writtenAsHtml.call(filterCall(ctx, this), answer);
  }
}

const filterCall = (ctx: Context, tag: EchoTag | CycleTag): FilterImpl =>
  ({ context: ctx, token: tag.token, liquid: tag.liquid }) as unknown as FilterImpl;

/**
 * Makes `engine` (the HTML one; its `outputEscape` is `writtenAsHtml`) keep the template's markup:
 * its filters, after all are registered, and its capture, echo and cycle tags.
 */
export function keepMarkup(engine: Liquid): void {
  for (const [name, impl] of Object.entries(engine.filters)) {
    const raw = typeof impl !== 'function' && impl.raw;
    const handler = (typeof impl === 'function' ? impl : impl.handler) as Handler;
    engine.registerFilter(name, { handler: markupAware(name, handler), raw });
  }
  engine.registerTag('capture', MarkupCapture);
  engine.registerTag('echo', MarkupEcho);
  engine.registerTag('cycle', MarkupCycle);
}

/**
 * Marks the string literals that are a value written out or assigned (`{{ "<b>x</b>" }}`,
 * `{% assign bold = "<b>Sale</b>" %}`, `{% echo %}`, `{% cycle %}`) as markup, in a parse for the
 * HTML engine. A literal compared in a condition stays text.
 */
export function markLiterals(templates: Template[]): void {
  for (const template of templates) {
    if (template instanceof Output) markLiteral(template.value.initial);
    else if (template instanceof EchoTag || template instanceof AssignTag) {
      const value = (template as unknown as { value?: Value }).value;
      if (value) markLiteral(value.initial);
    } else if (template instanceof CycleTag) {
      for (const candidate of (template as unknown as { candidates: FilteredValueToken[] }).candidates) {
        markLiteral(candidate.initial);
      }
    } else if (template.children) {
      markLiterals(toValueSync(template.children(false, true)));
    }
  }
}

function markLiteral(initial: Expression): void {
  const [only, ...rest] = initial.postfix;
  if (rest.length > 0 || !TypeGuards.isQuotedToken(only)) return;
  (only as { content: unknown }).content = markup(only.content);
}
