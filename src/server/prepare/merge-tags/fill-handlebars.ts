import Handlebars from 'handlebars';
import { handlebarsTokens } from './handlebars-lexer.ts';
import { PrepareError } from '../prepare-error.ts';
import type { FillOptions, Filled } from './filled.ts';
import { unfilledHandlebars } from './handlebars-unfilled.ts';
import { htmlCommentsHidden } from './html-comments.ts';
import { outOfStack, refuseDeepHandlebars } from './template-bounds.ts';
import {
  isForbiddenName,
  outOfRoom,
  outputCounter,
  prototypeAccess,
  reasonOf,
  templateInvalid,
  templateNotAllowed,
} from './template-problem.ts';

/**
 * Handlebars 4.7 merge tags, sandboxed: the built-in helpers only (`knownHelpersOnly`; the one
 * helper registered, `GROUP`, no template may name), no partials or decorators (there are no files
 * to include), prototype access left at its default (off), and any path naming a property every
 * object inherits (`constructor`, `__proto__`…) refused before rendering. The CPU budget is the
 * transform pool's.
 *
 * Unfilled tags are found on the syntax tree before it renders (handlebars-unfilled.ts).
 *
 * The built-in helpers read no clock and draw nothing at random: the same source and data fill to
 * the same bytes. Handlebars' compiler is made linear in the tags (`GROUP`, `IndexedCompiler`), and
 * its syntax and helper errors are put in the email developer's terms (`parseProblem`, `guard`).
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
/** Handlebars' hooks for a missing helper: known to its compiler, never in a template's reach. */
const HOOKS = new Set(['helperMissing', 'blockHelperMissing']);
/** The built-in helpers that take a block, and what their one value is, for messages. */
const BLOCK_HELPERS = new Map([
  ['if', 'one value to test, as in {{#if coupon}}…{{/if}}'],
  ['unless', 'one value to test, as in {{#unless coupon}}…{{/unless}}'],
  ['each', 'one list to repeat over, as in {{#each items}}…{{/each}}'],
  ['with', 'one object, as in {{#with customer}}…{{/with}}'],
]);

/**
 * Handlebars compiles a template into JavaScript, one function per block's body, and the cost of
 * compiling a function grows faster than its statements: 10,000 `{{a}}` in one body took 0.5 s
 * and 130 MB to compile, 40,000 exhausted a transform process's 384 MB (measured here). So a
 * body longer than `GROUP_SIZE` statements is split into groups, each a block of this helper, which
 * renders its statements in the same context and data, as if they stood where the group stands.
 * The output is the stock compiler's (`merge-tags.test.ts` compares them on grouped templates).
 * Its name is one no template may use (`guard`).
 */
const GROUP = 'proofmail:group';
const GROUP_SIZE = 128;
hb.registerHelper(GROUP, function group(this: unknown, options: Handlebars.HelperOptions) {
  // A helper's `this` is the context, or Handlebars' sealed empty `nullContext` where the context is
  // null or undefined (an #each over a list with nulls); the block is given null back, as it was.
  return options.fn(isNullContext(this) ? null : this, { data: options.data as unknown });
});

/**
 * Handlebars compiles a block's body once for all blocks whose bodies are equal: for each body it
 * compares it with every body compiled before (`matchExistingProgram`), quadratic in the blocks:
 * 2,500 `{{#if a}}<b>{{vN}}</b>{{/if}}` took 3 s to compile, 5,000 10 s (measured here). This
 * compiler finds the same match among the bodies compiled before with the same opcodes (a map
 * keyed by them): what it compares with is what Handlebars compares with, in the same order.
 */
interface OpcodeProgram {
  opcodes: { opcode: string; args: unknown[] }[];
  children: OpcodeProgram[];
  equals(other: OpcodeProgram): boolean;
}
interface JavaScriptCompiler {
  context: object;
  matchExistingProgram(child: OpcodeProgram): OpcodeProgram | undefined;
}
const keys = new WeakMap<OpcodeProgram, string>();
/**
 * A body's opcodes, then its children's keys as they are: stringifying them again as JSON strings
 * escaped their quotes once more per level, doubling the key at each level of nesting (20 nested
 * `{{#if}}` made a 25 MB key, 24 took 2 s to compile).
 */
function keyOf(program: OpcodeProgram): string {
  let key = keys.get(program);
  if (key === undefined) {
    const opcodes = JSON.stringify(program.opcodes.map((o) => [o.opcode, o.args]));
    key = `${opcodes}(${program.children.map(keyOf).join(',')})`;
    keys.set(program, key);
  }
  return key;
}
/** The bodies compiled so far in one compile (its shared `context`), by key, in order. */
const compiledIn = new WeakMap<object, Map<string, OpcodeProgram[]>>();
const StockCompiler = (Handlebars as unknown as { JavaScriptCompiler: new () => JavaScriptCompiler })
  .JavaScriptCompiler;
class IndexedCompiler extends StockCompiler {
  override matchExistingProgram(child: OpcodeProgram): OpcodeProgram | undefined {
    let compiled = compiledIn.get(this.context);
    if (!compiled) compiledIn.set(this.context, (compiled = new Map()));
    const key = keyOf(child);
    const same = compiled.get(key);
    const existing = same?.find((program) => program.equals(child));
    // Not found: Handlebars compiles it and adds it to those compared with next (compileChildren).
    if (!existing) {
      if (same) same.push(child);
      else compiled.set(key, [child]);
    }
    return existing;
  }
}
// Its children's bodies are compiled by the same class (Handlebars' pattern for a custom compiler).
(IndexedCompiler.prototype as unknown as { compiler: unknown }).compiler = IndexedCompiler;
(hb as unknown as { JavaScriptCompiler: unknown }).JavaScriptCompiler = IndexedCompiler;

const isNullContext = (context: unknown): boolean =>
  context !== null &&
  typeof context === 'object' &&
  Object.isSealed(context) &&
  Object.getPrototypeOf(context) === Object.prototype &&
  Object.keys(context).length === 0;

type Node = hbs.AST.Node;

function lineOf(node: Node): number {
  return node.loc?.start.line ?? 1;
}

/** A helper this sandbox does not have: not built in, or one of Handlebars' hooks. */
const notBuiltIn = (name: string, line: number | null) =>
  templateInvalid(
    'Handlebars',
    `"${name}" is not a built-in helper; only if, unless, each, with and lookup are available.`,
    line,
  );

/**
 * Refuses forbidden names, partials, decorators, helpers that are not built in and built-in
 * helpers used in a way Handlebars would fail on while rendering, anywhere, with their line
 * (`lines`: FillOptions.lines): the runtime's own errors are JavaScript's ("Cannot read properties
 * of undefined (reading 'call')" for `{{helperMissing}}`, "options.fn is not a function" for
 * `{{if a}}`) and have no line.
 */
function guard(node: Node, lines: boolean): void {
  const at = lines ? lineOf(node) : null;
  switch (node.type) {
    case 'PartialStatement':
    case 'PartialBlockStatement':
      throw templateNotAllowed(
        'Partials ({{> name}}) are not available: there are no files or registered partials to include. Put their content in the template.',
        at,
      );
    case 'Decorator':
    case 'DecoratorBlock':
      throw templateNotAllowed('Decorators ({{* name}}) are not available.', at);
    case 'PathExpression': {
      const path = node as hbs.AST.PathExpression;
      const bad = path.parts.find((part) => isForbiddenName(part));
      if (bad !== undefined) throw prototypeAccess(bad, at);
      if (path.parts[0] === GROUP) throw notBuiltIn(GROUP, at);
      return;
    }
    case 'MustacheStatement':
    case 'BlockStatement':
    case 'SubExpression': {
      const call = node as hbs.AST.MustacheStatement;
      if (call.path.type !== 'PathExpression') return;
      const name = (call.path as hbs.AST.PathExpression).original;
      const isCall = call.params.length > 0 || (call.hash?.pairs.length ?? 0) > 0;
      if (HOOKS.has(name) || (isCall && !BUILT_IN.has(name))) throw notBuiltIn(name, at);
      const takes = BLOCK_HELPERS.get(name);
      if (takes !== undefined && node.type !== 'BlockStatement') {
        throw templateInvalid('Handlebars', `{{${name}}} works only as a block, with ${takes}`, at);
      }
      if (takes !== undefined && call.params.length !== 1) {
        throw templateInvalid('Handlebars', `{{#${name}}} takes exactly ${takes}`, at);
      }
      if (name === 'lookup' && call.params.length !== 2) {
        throw templateInvalid(
          'Handlebars',
          '{{lookup}} takes an object and a key, as in {{lookup prices plan}}',
          at,
        );
      }
      if (name === 'lookup') {
        const key = call.params[1];
        if (key?.type === 'StringLiteral' && isForbiddenName((key as hbs.AST.StringLiteral).value)) {
          throw prototypeAccess((key as hbs.AST.StringLiteral).value, at);
        }
      }
      return;
    }
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

/**
 * Splits every body longer than `GROUP_SIZE` statements into blocks of the `GROUP` helper, and
 * those again while there are more than `GROUP_SIZE` of them: each compiled function stays short.
 */
function grouped(program: hbs.AST.Program | undefined): void {
  if (!program) return;
  for (const statement of program.body) {
    if (statement.type === 'BlockStatement') {
      grouped((statement as hbs.AST.BlockStatement).program);
      grouped((statement as hbs.AST.BlockStatement).inverse);
    }
  }
  let body = program.body;
  while (body.length > GROUP_SIZE) {
    const groups: hbs.AST.Statement[] = [];
    for (let at = 0; at < body.length; at += GROUP_SIZE)
      groups.push(groupOf(body.slice(at, at + GROUP_SIZE)));
    body = groups;
  }
  program.body = body;
}

function groupOf(body: hbs.AST.Statement[]): hbs.AST.BlockStatement {
  const loc = { source: '', start: body[0]!.loc.start, end: body[body.length - 1]!.loc.end };
  const none = { open: false, close: false };
  return {
    type: 'BlockStatement',
    path: { type: 'PathExpression', data: false, depth: 0, parts: [GROUP], original: GROUP, loc },
    params: [],
    hash: undefined as unknown as hbs.AST.Hash,
    program: { type: 'Program', body, blockParams: undefined as unknown as string[], loc },
    inverse: undefined as unknown as hbs.AST.Program,
    openStrip: none,
    inverseStrip: none,
    closeStrip: none,
    loc,
  };
}

/**
 * Whether a node of an HTML source's tree stands in an HTML comment no reader sees
 * (html-comments.ts); plain text (`html` false: the subject, a text part) has no comments.
 */
function hiddenNode(source: string, html: boolean): (node: Node) => boolean {
  const hidden = html ? htmlCommentsHidden(source, 'handlebars') : null;
  if (!hidden) return () => false;
  const starts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  // Handlebars counts lines from 1 and columns from 0.
  return (node) => hidden((starts[node.loc.start.line - 1] ?? 0) + node.loc.start.column);
}

export function fillHandlebars(
  source: string,
  data: Record<string, unknown>,
  { escape = true, lines = escape }: FillOptions = {},
): Filled {
  refuseDeepHandlebars(source, lines);
  let ast: hbs.AST.Program;
  try {
    ast = hb.parse(source);
  } catch (err) {
    const deep = outOfStack(err, 'handlebars');
    if (deep) throw deep;
    const problem = parseProblem(source, err, lines);
    throw templateInvalid('Handlebars', problem.reason, lines ? problem.line : null);
  }
  visitAll(ast, (node) => guard(node, lines));
  const unfilled = unfilledHandlebars(ast, data, hiddenNode(source, escape));
  grouped(ast);

  let output: string;
  try {
    const template = hb.compile(ast, {
      knownHelpersOnly: true,
      knownHelpers: { [GROUP]: true },
      preventIndent: true,
      noEscape: !escape,
      // The source was parsed with Handlebars' whitespace rules (standalone lines, `~`); compiling
      // parses the tree again, which must not read the groups' edges as standalone lines.
      ignoreStandalone: true,
    });
    output = template(data, { allowProtoPropertiesByDefault: false, allowProtoMethodsByDefault: false });
  } catch (err) {
    if (err instanceof PrepareError) throw err;
    const tooLarge = outOfRoom(err) ?? outOfStack(err, 'handlebars');
    if (tooLarge) throw tooLarge;
    const line = lines ? ((err as { lineNumber?: number }).lineNumber ?? null) : null;
    throw templateInvalid('Handlebars', reasonOf(err), line);
  }
  return { output, unfilled };
}

// ---------------------------------------------------------------------------------------------
// Syntax errors, in the email developer's terms.

interface ParseProblem {
  line: number | null;
  reason: string;
}

/** An open block while the source is read again: `{{#if}}` opened on `line`. */
interface OpenBlock {
  name: string;
  line: number;
  pastElse: boolean;
}

/** A tag being read: from its opening token (`{{`, `{{#`, `{{/`…) to its `}}`. */
interface OpenTag {
  kind: string;
  line: number;
  /** Offset of its first character in the source. */
  from: number;
  /** Its helper or path name, `a.b` (`ID`, `SEP`, `ID`), while the first tokens make one. */
  name: string;
  naming: boolean;
  tokens: number;
  invalid: boolean;
}

const OPENERS = new Set([
  'OPEN',
  'OPEN_UNESCAPED',
  'OPEN_BLOCK',
  'OPEN_INVERSE',
  'OPEN_INVERSE_CHAIN',
  'OPEN_ENDBLOCK',
  'OPEN_PARTIAL',
  'OPEN_PARTIAL_BLOCK',
]);

/**
 * Why Handlebars could not parse `source`, found by reading its tags again with Handlebars' own
 * lexer and keeping the blocks open: a block never closed (at the line it opens, not at the end of
 * the source where the parser noticed), closed by another block's `{{/…}}`, an `{{else}}` outside
 * a block or twice in one, a tag never closed, an empty tag, a name with characters a name cannot
 * have. Anything else is the parser's message with its token names put in words.
 */
function parseProblem(source: string, err: unknown, lines: boolean): ParseProblem {
  const starts = [0];
  for (let i = source.indexOf('\n'); i !== -1; i = source.indexOf('\n', i + 1)) starts.push(i + 1);
  const offset = (line: number, column: number) => (starts[line - 1] ?? source.length) + column;
  const lineAt = (at: number) => {
    let line = 1;
    while (line < starts.length && starts[line]! <= at) line++;
    return line;
  };
  const on = (line: number) => (lines ? ` on line ${line}` : '');
  const excerpt = (from: number, to: number) => {
    const text = source.slice(from, Math.min(to, from + 60)).replace(/\s+/g, ' ');
    return to - from > 60 ? `${text}…` : text;
  };

  const blocks: OpenBlock[] = [];
  let tag: OpenTag | undefined;
  /** Where the last token the lexer read ends. */
  let read = 0;
  for (const { kind, text: tokenText, at } of handlebarsTokens(source)) {
    if (kind === 'LEX_ERROR') {
      // A lexical error: a comment never closed, or else the parser's message below.
      const comment = /^\{\{~?!--/.exec(source.slice(read));
      if (comment) {
        return { line: lineAt(read), reason: 'the comment {{!-- is never closed: add --}}' };
      }
      break;
    }
    read = offset(at.last_line, at.last_column);
    if (kind === 'EOF') {
      if (tag) return unclosed(tag, source.length);
      const open = blocks.at(-1);
      if (open) {
        return {
          line: open.line,
          reason: `the {{#${open.name}}} block is never closed: add {{/${open.name}}}`,
        };
      }
      break;
    }
    if (OPENERS.has(kind)) {
      // Another tag opens before this one closed: `{{name</p><p>{{other}}`.
      if (tag) return unclosed(tag, offset(at.first_line, at.first_column));
      tag = {
        kind,
        line: at.first_line,
        from: offset(at.first_line, at.first_column),
        name: '',
        naming: true,
        tokens: 0,
        invalid: false,
      };
      continue;
    }
    if (kind === 'INVERSE') {
      // `{{else}}` or `{{^}}`, a whole tag.
      const open = blocks.at(-1);
      const text = tokenText.replace(/\s+/g, '');
      if (!open) {
        return {
          line: at.first_line,
          reason: `${text} is outside any block: it belongs between {{#if …}} and {{/if}}`,
        };
      }
      if (open.pastElse) {
        return {
          line: at.first_line,
          reason: `the {{#${open.name}}} block${on(open.line)} has a second ${text}: a block has one (for more branches, {{else if …}})`,
        };
      }
      open.pastElse = true;
      continue;
    }
    if (!tag) continue;
    if (kind === 'CLOSE' || kind === 'CLOSE_UNESCAPED') {
      const problem = closed(tag, kind);
      if (problem) return problem;
      tag = undefined;
      continue;
    }
    tag.tokens++;
    if (kind === 'INVALID') tag.invalid = true;
    if (
      tag.naming &&
      kind === 'ID' &&
      (tag.name === '' || tag.name.endsWith('.') || tag.name.endsWith('/'))
    ) {
      tag.name += tokenText;
    } else if (tag.naming && kind === 'SEP' && tag.name !== '') {
      tag.name += tokenText;
    } else {
      tag.naming = false;
    }
  }
  return parserMessage(err);

  /** A tag that runs into the next one or the end: named by its first line. */
  function unclosed(tag: OpenTag, to: number): ParseProblem {
    const head = source
      .slice(tag.from, Math.min(to, tag.from + 60))
      .split('\n')[0]!
      .trimEnd();
    return {
      line: tag.line,
      reason: `the tag "${head}" is never closed: add ${tag.kind === 'OPEN_UNESCAPED' ? '}}}' : '}}'}`,
    };
  }

  function closed(tag: OpenTag, kind: string): ParseProblem | undefined {
    const text = excerpt(tag.from, read);
    if (tag.invalid) {
      return {
        line: tag.line,
        reason: `"${text}" is not a tag Handlebars can read: a name has no spaces or punctuation but - and _ (other keys go in brackets, as {{[first name]}})`,
      };
    }
    if (tag.tokens === 0) {
      return { line: tag.line, reason: `${text} is empty: put a name in it, as in {{first_name}}` };
    }
    if (tag.kind === 'OPEN_UNESCAPED' && kind !== 'CLOSE_UNESCAPED') {
      return {
        line: tag.line,
        reason: `"${text}" opens with {{{ and closes with }}: use three braces on both sides, or two`,
      };
    }
    const open = blocks.at(-1);
    switch (tag.kind) {
      case 'OPEN_BLOCK':
      case 'OPEN_INVERSE':
      case 'OPEN_PARTIAL_BLOCK':
        if (tag.name !== '') blocks.push({ name: tag.name, line: tag.line, pastElse: false });
        return undefined;
      case 'OPEN_INVERSE_CHAIN':
        if (!open) {
          return {
            line: tag.line,
            reason: `${text} is outside any block: it belongs between {{#if …}} and {{/if}}`,
          };
        }
        if (open.pastElse) {
          return {
            line: tag.line,
            reason: `the {{#${open.name}}} block${on(open.line)} has ${text} after its {{else}}: the {{else}} comes last`,
          };
        }
        return undefined;
      case 'OPEN_ENDBLOCK':
        if (!open) {
          return {
            line: tag.line,
            reason: `${text} closes no block: remove it, or open the block with {{#${tag.name} …}}`,
          };
        }
        if (open.name !== tag.name) {
          return blocks.some((b) => b.name === tag.name)
            ? {
                line: open.line,
                reason: `the {{#${open.name}}} block is never closed: add {{/${open.name}}} before the ${text}${on(tag.line)}`,
              }
            : {
                line: tag.line,
                reason: `${text} closes no block: the block open here is {{#${open.name}}}${on(open.line)}, closed with {{/${open.name}}}`,
              };
        }
        blocks.pop();
        return undefined;
      default:
        return undefined;
    }
  }
}

/** What the parser's message tells, in words: "expected a name, found }}". */
const TOKEN_WORDS: Record<string, string> = {
  CLOSE: '"}}"',
  CLOSE_UNESCAPED: '"}}}"',
  CLOSE_RAW_BLOCK: '"}}}}"',
  OPEN_SEXPR: '"("',
  CLOSE_SEXPR: '")"',
  OPEN_BLOCK_PARAMS: '"as |"',
  CLOSE_BLOCK_PARAMS: '"|"',
  EQUALS: '"="',
  SEP: '"." or "/"',
  ID: 'a name',
  STRING: 'a string',
  NUMBER: 'a number',
  DATA: 'an @name',
  EOF: 'the end of the template',
  INVALID: 'a character a name cannot have',
  OPEN_ENDBLOCK: '"{{/"',
  INVERSE: '"{{else}}"',
  OPEN_INVERSE_CHAIN: '"{{else …}}"',
};
const words = (token: string) => TOKEN_WORDS[token] ?? `"${token.toLowerCase()}"`;

function parserMessage(err: unknown): ParseProblem {
  const text = err instanceof Error ? err.message : String(err);
  // "Parse error on line 2: … Expecting 'ID', got 'CLOSE'", "Invalid path: a/.. - 2:2",
  // "if doesn't match each - 1:3", "Lexical error on line 1. Unrecognized text. …".
  const lineText = /line (\d+)/i.exec(text)?.[1] ?? / - (\d+):\d+$/.exec(text)?.[1];
  const line = lineText ? Number(lineText) : null;
  const expecting = /Expecting (.+), got '(\w+)'/.exec(text);
  if (expecting) {
    const expected = [...new Set([...expecting[1]!.matchAll(/'(\w+)'/g)].map((m) => words(m[1]!)))];
    const list = expected.includes('a name') ? ['a name'] : expected.slice(0, 3);
    return {
      line,
      reason: `in a tag, Handlebars expected ${list.join(' or ')} but found ${words(expecting[2]!)}`,
    };
  }
  const path = /^Invalid path: (.*) - \d+:\d+$/.exec(text);
  if (path) {
    return {
      line,
      reason: `"${path[1]}" is not a path Handlebars can read: "../" goes only at its start, as in {{../name}}`,
    };
  }
  if (/^Lexical error/.test(text)) {
    return {
      line,
      reason: 'Handlebars cannot read this line: check the tags for a {{ or }} too many or missing',
    };
  }
  const detail = reasonOf(err)
    .replace(/^Parse error on line \d+:?\s*/i, '')
    .replace(/ - \d+:\d+$/, '');
  return { line, reason: detail.slice(0, 300) || 'syntax error' };
}
