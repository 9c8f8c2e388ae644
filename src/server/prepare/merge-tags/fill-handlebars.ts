import Handlebars from 'handlebars';
import { PrepareError } from '../prepare-error.ts';
import type { FillOptions, Filled } from './filled.ts';
import {
  isForbiddenName,
  outOfRoom,
  outputCounter,
  prototypeAccess,
  reasonOf,
  templateInvalid,
  templateNotAllowed,
  valueAt,
} from './template-problem.ts';

/**
 * Handlebars 4.7 merge tags, sandboxed: the built-in helpers only (`knownHelpersOnly`, no custom
 * helper is registered), no partials or decorators (there are no files to include), prototype
 * access left at its default (off), and any path naming a property every object inherits
 * (`constructor`, `__proto__`…) refused before rendering. The CPU budget is the transform pool's.
 *
 * Unfilled tags are found on the syntax tree: each path is looked up in the sample data along the
 * contexts the blocks give it (`#with`, `#each`'s first item, with or without block params, `../`,
 * `@root`), in the branches the sample data takes (`#if`, `#unless`, an else of `#each`/`#with`).
 */

const hb = Handlebars.create();
// `{{log}}` would write to the transform process's stderr: it renders nothing, and says nothing.
hb.registerHelper('log', () => '');
/**
 * `#each` is the only way a template here repeats (no partials, no custom helpers), and what one
 * `#each` makes ends up in the output. So it counts what its iterations return and stops once that
 * passes the HTML's size limit, rather than building hundreds of MB until the process runs out of
 * memory (`outputCounter`). Otherwise it is the built-in helper, unchanged.
 */
const builtInEach = hb.helpers.each as (
  this: unknown,
  context: unknown,
  options: Handlebars.HelperOptions,
) => string;
hb.registerHelper('each', function each(this: unknown, context: unknown, options: Handlebars.HelperOptions) {
  const count = outputCounter();
  const fn = (item: unknown, runtime?: Handlebars.RuntimeOptions) => {
    const out = options.fn(item, runtime);
    count(out.length);
    return out;
  };
  return builtInEach.call(this, context, { ...options, fn });
});
const BUILT_IN = new Set(['if', 'unless', 'each', 'with', 'lookup', 'log']);

type Node = hbs.AST.Node;
type Expression = hbs.AST.Expression;

/** A context we cannot know (inside `#each` over nothing): paths under it are not reported. */
const UNKNOWN = Symbol('unknown');

interface Scope {
  /** Contexts from the root (index 0) to the current one. */
  contexts: unknown[];
  /** Block params (`as |item index|`) in reach, nearest last. */
  params: Map<string, unknown>;
}

function lineOf(node: Node): number {
  return node.loc?.start.line ?? 1;
}

/** Handlebars' test of `if`, `unless`, `with` and `#each`'s else: false, empty and 0 are not. */
function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  return Boolean(value);
}

function firstItem(value: unknown): unknown {
  if (Array.isArray(value)) return value.length > 0 ? value[0] : UNKNOWN;
  if (value !== null && typeof value === 'object') {
    const values = Object.values(value);
    return values.length > 0 ? values[0] : UNKNOWN;
  }
  return UNKNOWN;
}

class Walker {
  readonly unfilled = new Set<string>();

  constructor(private readonly root: unknown) {}

  /** The value of a path in a scope; UNKNOWN when it cannot be known here. */
  resolve(path: hbs.AST.PathExpression, scope: Scope): unknown {
    if (path.data) {
      // @root.x reads the data; @index, @key, @first… are the loop's, always there.
      return path.parts[0] === 'root' ? valueAt(this.root, path.parts.slice(1)) : UNKNOWN;
    }
    const head = path.parts[0];
    if (path.depth === 0 && head !== undefined && scope.params.has(head)) {
      const bound = scope.params.get(head);
      return bound === UNKNOWN ? UNKNOWN : valueAt(bound, path.parts.slice(1));
    }
    const context = scope.contexts[scope.contexts.length - 1 - path.depth];
    if (context === UNKNOWN) return UNKNOWN;
    return valueAt(context, path.parts);
  }

  /** Reports a path the data does not fill; returns its value. */
  check(expr: Expression, scope: Scope): unknown {
    if (expr.type === 'SubExpression') {
      this.expressions((expr as hbs.AST.SubExpression).params, scope);
      return UNKNOWN;
    }
    if (expr.type !== 'PathExpression') return UNKNOWN;
    const path = expr as hbs.AST.PathExpression;
    const value = this.resolve(path, scope);
    if (value === undefined) this.unfilled.add(path.original);
    return value;
  }

  expressions(params: Expression[], scope: Scope): void {
    for (const param of params) this.check(param, scope);
  }

  /** Refuses forbidden names, partials, decorators and helpers that are not built in, anywhere. */
  guard(node: Node): void {
    switch (node.type) {
      case 'PartialStatement':
      case 'PartialBlockStatement':
        throw templateNotAllowed(
          'Partials ({{> name}}) are not available: there are no files or registered partials to include. Put their content in the template.',
          lineOf(node),
        );
      case 'Decorator':
      case 'DecoratorBlock':
        throw templateNotAllowed('Decorators ({{* name}}) are not available.', lineOf(node));
      case 'PathExpression': {
        const path = node as hbs.AST.PathExpression;
        const bad = path.parts.find((part) => isForbiddenName(part));
        if (bad !== undefined) throw prototypeAccess(bad, lineOf(node));
        return;
      }
      case 'MustacheStatement':
      case 'BlockStatement':
      case 'SubExpression': {
        const call = node as hbs.AST.MustacheStatement;
        const name =
          call.path.type === 'PathExpression' ? (call.path as hbs.AST.PathExpression).original : '';
        const isCall = call.params.length > 0 || (call.hash?.pairs.length ?? 0) > 0;
        if (isCall && !BUILT_IN.has(name)) {
          throw templateInvalid(
            'Handlebars',
            `"${name}" is not a built-in helper; only if, unless, each, with and lookup are available.`,
            lineOf(node),
          );
        }
        if (name === 'lookup') {
          const key = call.params[1];
          if (key?.type === 'StringLiteral' && isForbiddenName((key as hbs.AST.StringLiteral).value)) {
            throw prototypeAccess((key as hbs.AST.StringLiteral).value, lineOf(node));
          }
        }
        return;
      }
    }
  }

  program(program: hbs.AST.Program | undefined, scope: Scope): void {
    for (const statement of program?.body ?? []) this.statement(statement, scope);
  }

  statement(node: hbs.AST.Statement, scope: Scope): void {
    if (node.type === 'MustacheStatement') {
      const mustache = node as hbs.AST.MustacheStatement;
      const name = (mustache.path as hbs.AST.PathExpression).original;
      if (mustache.params.length > 0 && BUILT_IN.has(name)) this.expressions(mustache.params, scope);
      else this.check(mustache.path, scope);
      return;
    }
    if (node.type !== 'BlockStatement') return;
    const block = node as hbs.AST.BlockStatement;
    const name = (block.path as hbs.AST.PathExpression).original;
    const inner = (context: unknown): Scope => {
      const params = new Map(scope.params);
      const names = block.program.blockParams ?? [];
      if (names[0] !== undefined) params.set(names[0], context);
      if (names[1] !== undefined) params.set(names[1], UNKNOWN);
      // Block params name the item, and the block's context is still the item (`{{title}}`,
      // `{{../name}}` read as without them): Handlebars' `each` and `with` pass it either way.
      return { contexts: [...scope.contexts, context], params };
    };
    const subject = block.params[0];
    if (name === 'if' || name === 'unless') {
      // A condition on missing data is what conditions are for: not reported. Where the sample
      // data decides it, only the branch it takes renders, so only that one is read.
      const value =
        subject?.type === 'PathExpression' && !block.hash
          ? this.resolve(subject as hbs.AST.PathExpression, scope)
          : UNKNOWN;
      const taken = value === UNKNOWN ? undefined : truthy(value) === (name === 'if');
      if (taken !== false) this.program(block.program, scope);
      if (taken !== true) this.program(block.inverse, scope);
      return;
    } else if ((name === 'with' || name === 'each') && subject) {
      const value = this.check(subject, scope);
      const context = value === undefined ? UNKNOWN : name === 'each' ? firstItem(value) : value;
      this.program(block.program, inner(context));
      // The else branch renders only for nothing to show.
      if (value === UNKNOWN || !truthy(value)) this.program(block.inverse, scope);
      return;
    } else {
      // A block on a data path: a section over a list, an object or a flag.
      const value = this.check(block.path, scope);
      const context =
        value === undefined || value === UNKNOWN
          ? UNKNOWN
          : Array.isArray(value)
            ? firstItem(value)
            : typeof value === 'object'
              ? value
              : scope.contexts[scope.contexts.length - 1];
      this.program(block.program, inner(context));
    }
    this.program(block.inverse, scope);
  }
}

function visitAll(node: unknown, visit: (node: Node) => void): void {
  if (Array.isArray(node)) {
    for (const item of node) visitAll(item, visit);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  const typed = node as Node & Record<string, unknown>;
  if (typeof typed.type === 'string') visit(typed);
  for (const [key, value] of Object.entries(typed)) {
    if (key !== 'loc' && typeof value === 'object') visitAll(value, visit);
  }
}

export function fillHandlebars(
  source: string,
  data: Record<string, unknown>,
  { escape = true }: FillOptions = {},
): Filled {
  let ast: hbs.AST.Program;
  try {
    ast = hb.parse(source);
  } catch (err) {
    // "Parse error on line 2: … Expecting 'ID', got 'CLOSE'", or "if doesn't match each - 1:3".
    const text = err instanceof Error ? err.message : String(err);
    const line = /line (\d+)/i.exec(text)?.[1] ?? / - (\d+):\d+$/.exec(text)?.[1];
    const expecting = text.split('\n').find((l) => l.startsWith('Expecting'));
    const detail =
      expecting ??
      reasonOf(err)
        .replace(/^Parse error on line \d+:?\s*/i, '')
        .replace(/ - \d+:\d+$/, '');
    throw templateInvalid('Handlebars', detail.slice(0, 300) || 'syntax error', line ? Number(line) : null);
  }
  const walker = new Walker(data);
  visitAll(ast, (node) => walker.guard(node));
  walker.program(ast, { contexts: [data], params: new Map() });

  let output: string;
  try {
    const template = hb.compile(ast, { knownHelpersOnly: true, preventIndent: true, noEscape: !escape });
    output = template(data, { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false });
  } catch (err) {
    if (err instanceof PrepareError) throw err;
    const tooLarge = outOfRoom(err);
    if (tooLarge) throw tooLarge;
    const line = (err as { lineNumber?: number }).lineNumber ?? null;
    throw templateInvalid('Handlebars', reasonOf(err), line);
  }
  return { output, unfilled: [...walker.unfilled] };
}
