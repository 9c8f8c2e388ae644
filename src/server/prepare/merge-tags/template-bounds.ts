import { Tokenizer, TypeGuards, type LiquidOptions, type TagToken, type TopLevelToken } from 'liquidjs';
import { PrepareError } from '../prepare-error.ts';
import { handlebarsTokens } from './handlebars-lexer.ts';
import { inErrorChain } from './template-problem.ts';

/**
 * How deep a template may nest, checked on the engine's own tokens before it parses
 * (docs/decisions/0115-merge-tags-same-bytes-and-bounded.md, amended 2026-11-28). Handlebars and
 * liquidjs parse, compile and render nested blocks by recursion, and Handlebars compiles a path
 * into a JavaScript expression nested as deep as its parts: about 2,400 nested blocks, or 1,000
 * parts in one path, ran out of stack ("Maximum call stack size exceeded"), and a path of 100,000
 * parts crashed its transform process. Real templates nest a few levels; sample data nests at
 * most 16.
 */
export const MAX_NESTING = 100;
export const MAX_PATH_PARTS = 100;

function tooDeep(message: string, line: number | null): PrepareError {
  return new PrepareError('template_too_large', line ? `Line ${line}: ${message}` : message, [
    { line: line ?? 1, message },
  ]);
}

const NESTING = {
  handlebars: `Blocks are nested more than ${MAX_NESTING} deep here; at most ${MAX_NESTING} may be open inside one another (each {{else if …}} counts as a block inside the one before it). Close blocks before opening more.`,
  liquid: `Tags are nested more than ${MAX_NESTING} deep here; at most ${MAX_NESTING} blocks ({% if %}, {% for %}, {% capture %}…) may be open inside one another. Close blocks before opening more.`,
} as const;

/** An engine that ran out of stack all the same: nested too deeply, not a template it cannot read. */
export function outOfStack(err: unknown, syntax: keyof typeof NESTING): PrepareError | undefined {
  const exhausted = inErrorChain(
    err,
    (at) => at instanceof RangeError && /maximum call stack/i.test(at.message),
  );
  return exhausted ? tooDeep(NESTING[syntax].replace(' here', ''), null) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Handlebars, read with its own lexer (linear, no recursion).

/**
 * Refuses a block, `{{else if …}}` or subexpression nested past `MAX_NESTING`, and a path of more
 * than `MAX_PATH_PARTS` parts, at its line (`lines`: FillOptions.lines). A source the lexer cannot
 * read is left to the parser, which names the problem.
 */
export function refuseDeepHandlebars(source: string, lines: boolean): void {
  /** For each open block, the levels it adds: 1, and 1 per `{{else if …}}` (nested in the tree). */
  const blocks: number[] = [];
  let depth = 0;
  let parts = 0;
  let path = '';
  let previous = '';
  for (const { kind, text, at } of handlebarsTokens(source)) {
    if (kind === 'EOF' || kind === 'LEX_ERROR') return;
    const line = lines ? at.first_line : null;
    switch (kind) {
      case 'OPEN_BLOCK':
      case 'OPEN_INVERSE':
      case 'OPEN_PARTIAL_BLOCK':
        blocks.push(1);
        depth++;
        break;
      case 'OPEN_INVERSE_CHAIN':
        if (blocks.length > 0) {
          blocks[blocks.length - 1]!++;
          depth++;
        }
        break;
      case 'OPEN_ENDBLOCK':
        depth -= blocks.pop() ?? 0;
        break;
      case 'OPEN_SEXPR':
        depth++;
        break;
      case 'CLOSE_SEXPR':
        depth--;
        break;
      case 'ID':
        if (previous === 'SEP') {
          parts++;
          if (path.length < 40) path += `.${text}`;
        } else {
          parts = 1;
          path = text;
        }
        if (parts > MAX_PATH_PARTS) {
          throw tooDeep(
            `The path "${path.slice(0, 40)}…" has more than ${MAX_PATH_PARTS} parts; a merge tag may read at most ${MAX_PATH_PARTS} levels into the sample data (which nests at most 16).`,
            line,
          );
        }
        break;
    }
    if (depth > MAX_NESTING) throw tooDeep(NESTING.handlebars, line);
    previous = kind;
  }
}

// ---------------------------------------------------------------------------------------------
// Liquid, read from the tokens its parser is about to take (a `{% liquid %}` tag's lines too).

/** The tags that open a block closed by `end<name>`. */
const LIQUID_BLOCKS = new Set(['if', 'unless', 'for', 'tablerow', 'case', 'capture']);
/** Blocks whose content is not parsed: what is inside them does not nest. */
const LIQUID_UNPARSED = new Set(['raw', 'comment']);

/** Refuses blocks nested past `MAX_NESTING`, at the line of the one that passes it. */
export function refuseDeepLiquid(tokens: TopLevelToken[], options: LiquidOptions, lines: boolean): void {
  let depth = 0;
  let unparsed: string | undefined;
  const visit = (list: readonly TopLevelToken[]) => {
    for (const token of list) {
      if (!TypeGuards.isTagToken(token)) continue;
      const name = token.name;
      if (unparsed !== undefined) {
        if (name === `end${unparsed}`) unparsed = undefined;
        continue;
      }
      if (LIQUID_UNPARSED.has(name)) unparsed = name;
      else if (name.startsWith('end') && LIQUID_BLOCKS.has(name.slice(3))) depth = Math.max(0, depth - 1);
      else if (LIQUID_BLOCKS.has(name) || name === 'liquid') {
        depth++;
        if (depth > MAX_NESTING) throw tooDeep(NESTING.liquid, lines ? token.getPosition()[0]! : null);
        // Its lines are tags parsed inside it; the tag itself closes at its end.
        if (name === 'liquid') {
          visit(liquidLines(token, options));
          depth--;
        }
      }
    }
  };
  visit(tokens);
}

/** The tags of a `{% liquid %}` tag's lines, as liquidjs reads them (none if it cannot). */
function liquidLines(token: TagToken, options: LiquidOptions): TopLevelToken[] {
  const range: [number, number] = [token.tokenizer.p, token.contentRange[1]];
  try {
    return new Tokenizer(token.input, options.operators, undefined, range).readLiquidTagTokens(
      options as never,
    );
  } catch {
    return [];
  }
}
