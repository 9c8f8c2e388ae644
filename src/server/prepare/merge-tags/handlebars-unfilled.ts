import { valueAt } from './template-problem.ts';

/**
 * The merge tags a Handlebars template leaves blank with its sample data
 * (docs/decisions/0068-merge-tags-sandboxed.md), found on the syntax tree before it renders: each
 * path looked up in every context the render gives it (each item of an `#each`, not only the
 * first; `#with`, block params, `../`, `@root`), in the branches the sample data takes, and each
 * `lookup` that finds nothing (reported as `map.key`). Not the conditions of `#if`/`#unless`
 * (missing data is what they test), nor a tag in an HTML comment no reader sees (`hidden`).
 */

type Node = hbs.AST.Node;
type Expression = hbs.AST.Expression;

/** A value we cannot know (a helper's answer, `@index`): nothing read from it is reported. */
const UNKNOWN = Symbol('unknown');

interface Scope {
  /**
   * The contexts from the root (level 0) to the current one: at each level, every value that
   * context takes in the render, once each (the items of an `#each`, each value of a `#with`).
   */
  levels: unknown[][];
  /** Block params in reach (`as |item index|`): the level of the value they name, or UNKNOWN. */
  params: Map<string, number | typeof UNKNOWN>;
}

/** A path read in a scope: its value in each context of `level`; `level` null: in none in particular. */
interface Reading {
  level: number | null;
  values: unknown[];
}

const UNKNOWN_READING: Reading = { level: null, values: [UNKNOWN] };

/** At most this many object–key pairs are tried for one `lookup` whose two sides vary apart. */
const MAX_LOOKUP_PAIRS = 10_000;

export function unfilledHandlebars(
  ast: hbs.AST.Program,
  data: unknown,
  hidden: (node: Node) => boolean,
): string[] {
  const walker = new UnfilledWalker(data, hidden);
  walker.program(ast, { levels: [[data]], params: new Map() });
  return [...walker.unfilled];
}

/** Handlebars' `isEmpty`: what `#with` does not render its body for (0 it does). */
const isEmpty = (value: unknown): boolean =>
  (!value && value !== 0) || (Array.isArray(value) && value.length === 0);
/** What `#if` renders its body for (without `includeZero`). */
const holds = (value: unknown): boolean => Boolean(value) && !isEmpty(value);
/** What `#each` renders its body for: a list's items, an object's values. */
const itemsOf = (value: unknown): unknown[] =>
  Array.isArray(value) ? value : value !== null && typeof value === 'object' ? Object.values(value) : [];
/** Whether a block on a data path (`{{#section}}`) renders its body (Handlebars' blockHelperMissing). */
const rendersSection = (value: unknown): boolean =>
  value === true || (value !== false && value != null && (!Array.isArray(value) || value.length > 0));

const unique = (values: unknown[]): unknown[] => [...new Set(values)];

/** `.key`, or `.[key]` for a key that is not a plain name: how Handlebars writes the path. */
const segment = (key: unknown): string => {
  const text = String(key);
  return /^[A-Za-z_$][\w$-]*$/.test(text) ? `.${text}` : `.[${text}]`;
};

class UnfilledWalker {
  readonly unfilled = new Set<string>();

  constructor(
    private readonly root: unknown,
    private readonly hidden: (node: Node) => boolean,
  ) {}

  private report(name: string, node: Node): void {
    if (!this.hidden(node)) this.unfilled.add(name);
  }

  private read(scope: Scope, level: number, parts: readonly (string | number)[]): Reading {
    const contexts = scope.levels[level]!;
    return { level, values: contexts.map((c) => (c === UNKNOWN ? UNKNOWN : valueAt(c, parts))) };
  }

  resolve(path: hbs.AST.PathExpression, scope: Scope): Reading {
    const { parts } = path;
    if (path.data) {
      // @root.x reads the data; @index, @key, @first… are the loop's, always there.
      return parts[0] === 'root'
        ? { level: null, values: [valueAt(this.root, parts.slice(1))] }
        : UNKNOWN_READING;
    }
    const head = parts[0];
    if (path.depth === 0 && head !== undefined && scope.params.has(head)) {
      const level = scope.params.get(head)!;
      return level === UNKNOWN ? UNKNOWN_READING : this.read(scope, level, parts.slice(1));
    }
    const level = scope.levels.length - 1 - path.depth;
    return level < 0 ? { level: null, values: [undefined] } : this.read(scope, level, parts);
  }

  /** Reports a path the data leaves blank in any of its contexts; returns its reading. */
  check(expr: Expression, scope: Scope): Reading {
    if (expr.type === 'SubExpression') {
      const call = expr as hbs.AST.SubExpression;
      if (isLookup(call)) return this.lookup(call, scope, false);
      for (const param of call.params) this.check(param, scope);
      return UNKNOWN_READING;
    }
    if (expr.type !== 'PathExpression') return UNKNOWN_READING;
    const path = expr as hbs.AST.PathExpression;
    const reading = this.resolve(path, scope);
    if (reading.values.includes(undefined)) this.report(path.original, path);
    return reading;
  }

  /**
   * `lookup object key`: what it finds for each object and key. Where a known object has no such
   * key, it renders blank, and `report` names it as the path it reads (`prices.gold`).
   */
  lookup(call: hbs.AST.MustacheStatement | hbs.AST.SubExpression, scope: Scope, report: boolean): Reading {
    const [objectParam, keyParam] = call.params as [Expression, Expression];
    const objects = this.check(objectParam, scope);
    const keys =
      keyParam.type === 'StringLiteral' || keyParam.type === 'NumberLiteral'
        ? { level: null, values: [(keyParam as hbs.AST.StringLiteral).value] }
        : this.check(keyParam, scope);
    const find = (object: unknown, key: unknown): unknown => {
      if (object === UNKNOWN || key === UNKNOWN) return UNKNOWN;
      // Handlebars answers a falsy object itself, and reads a text's own properties (length…).
      if (object === null || typeof object !== 'object') return object === undefined ? undefined : UNKNOWN;
      if (typeof key !== 'string' && typeof key !== 'number') return UNKNOWN;
      const found = valueAt(object, [key]);
      if (found === undefined && report && objectParam.type === 'PathExpression') {
        this.report(`${(objectParam as hbs.AST.PathExpression).original}${segment(key)}`, call);
      }
      return found;
    };
    if (objects.level !== null && objects.level === keys.level) {
      return { level: objects.level, values: objects.values.map((o, at) => find(o, keys.values[at])) };
    }
    const found: unknown[] = [];
    let pairs = 0;
    for (const object of unique(objects.values)) {
      for (const key of unique(keys.values)) {
        if (++pairs > MAX_LOOKUP_PAIRS) return { level: null, values: unique([...found, UNKNOWN]) };
        found.push(find(object, key));
      }
    }
    return { level: null, values: unique(found) };
  }

  program(program: hbs.AST.Program | undefined, scope: Scope | null): void {
    if (!program || !scope) return;
    for (const statement of program.body) this.statement(statement, scope);
  }

  statement(node: hbs.AST.Statement, scope: Scope): void {
    if (node.type === 'MustacheStatement') {
      const mustache = node as hbs.AST.MustacheStatement;
      // A tag with parameters calls a built-in helper (the others are refused before this).
      if (isLookup(mustache)) this.lookup(mustache, scope, true);
      else if (mustache.params.length > 0) for (const param of mustache.params) this.check(param, scope);
      else this.check(mustache.path, scope);
      return;
    }
    if (node.type !== 'BlockStatement') return;
    const block = node as hbs.AST.BlockStatement;
    const name = (block.path as hbs.AST.PathExpression).original;
    const subject = block.params[0];
    if (name === 'if' || name === 'unless') {
      // A condition on missing data is what conditions are for: not reported. Where the sample
      // data decides it, a branch is read in the contexts it renders in.
      const condition =
        subject?.type === 'PathExpression' && !block.hash
          ? this.resolve(subject as hbs.AST.PathExpression, scope)
          : UNKNOWN_READING;
      const body = split(scope, condition, (value) => holds(value) === (name === 'if'));
      this.program(block.program, body.yes);
      this.program(block.inverse, body.no);
      return;
    }
    if ((name === 'each' || name === 'with') && subject) {
      // With an {{else}} the author has written what shows without it: missing data is tested,
      // as a condition's is, and not reported.
      const value =
        block.inverse && subject.type === 'PathExpression'
          ? this.resolve(subject as hbs.AST.PathExpression, scope)
          : this.check(subject, scope);
      const contexts = (v: unknown): unknown[] =>
        v === UNKNOWN ? [UNKNOWN] : name === 'each' ? itemsOf(v) : isEmpty(v) ? [] : [v];
      this.program(block.program, inner(scope, block, unique(value.values.flatMap(contexts))));
      // The else branch renders where there is nothing to show.
      this.program(block.inverse, split(scope, value, (v) => contexts(v).length > 0).no);
      return;
    }
    // A block on a data path: a section over a list, an object or a flag.
    const value = this.check(block.path, scope);
    const current = scope.levels.length - 1;
    const contexts = value.values.flatMap((v, at) => {
      if (v === UNKNOWN) return [UNKNOWN];
      if (!rendersSection(v)) return [];
      if (Array.isArray(v)) return v;
      if (v !== true) return [v];
      // `true` renders the body in the context it stands in.
      return value.level === current ? [scope.levels[current]![at]] : scope.levels[current]!;
    });
    this.program(block.program, inner(scope, block, unique(contexts)));
    this.program(block.inverse, split(scope, value, rendersSection).no);
  }
}

const isLookup = (call: hbs.AST.MustacheStatement | hbs.AST.SubExpression): boolean =>
  call.path.type === 'PathExpression' &&
  (call.path as hbs.AST.PathExpression).original === 'lookup' &&
  call.params.length === 2;

/** The scope of a block's body, whose context takes each of `contexts`; null when it renders none. */
function inner(scope: Scope, block: hbs.AST.BlockStatement, contexts: unknown[]): Scope | null {
  if (contexts.length === 0) return null;
  const params = new Map(scope.params);
  const names = block.program.blockParams ?? [];
  // Block params name the item, and the block's context is still the item (`{{title}}`,
  // `{{../name}}` read as without them): Handlebars' `each` and `with` pass it either way.
  if (names[0] !== undefined) params.set(names[0], scope.levels.length);
  if (names[1] !== undefined) params.set(names[1], UNKNOWN);
  return { levels: [...scope.levels, contexts], params };
}

/**
 * The scope where `test` holds for a reading and the one where it does not, each keeping only the
 * contexts of the reading's level it holds (or not) in; null where there are none.
 */
function split(
  scope: Scope,
  reading: Reading,
  test: (value: unknown) => boolean,
): { yes: Scope | null; no: Scope | null } {
  const { level, values } = reading;
  if (level === null) {
    const some = (want: boolean) => values.some((v) => v === UNKNOWN || test(v) === want);
    return { yes: some(true) ? scope : null, no: some(false) ? scope : null };
  }
  const contexts = scope.levels[level]!;
  const where = (want: boolean): Scope | null => {
    const kept = contexts.filter((_, at) => values[at] === UNKNOWN || test(values[at]) === want);
    if (kept.length === 0) return null;
    if (kept.length === contexts.length) return scope;
    const levels = [...scope.levels];
    levels[level] = kept;
    return { ...scope, levels };
  };
  return { yes: where(true), no: where(false) };
}
