import type { FillOptions, Filled } from './filled.ts';
import { escapeHtml } from './escape-html.ts';
import { htmlCommentsHidden } from './html-comments.ts';
import { outputCounter, templateInvalid } from './template-problem.ts';

/**
 * Mailchimp's merge language (docs/decisions/0068-merge-tags-sandboxed.md): `*|TAG|*` becomes the
 * value of that key of the sample data (exactly, in upper case as Mailchimp writes them, or else in
 * any case: `fname` fills `*|FNAME|*`), HTML-escaped; conditional blocks choose what is kept:
 *
 *     *|IF:FNAME|*Hi *|FNAME|*,*|ELSE:|*Hi there,*|END:IF|*
 *     *|IF:PLAN=pro|*…*|ELSEIF:PLAN=team|*…*|END:IF|*      (also !=, >, <, >=, <=)
 *     *|IFNOT:COUPON|*…*|END:IF|*
 *
 * nested as deep as written. A tag without a value is listed as unfilled and left as written; a
 * tag in a branch not taken, or in an HTML comment no reader sees, is not. System tags (`*|UNSUB|*`, `*|MC:SUBJECT|*`…) are tags like any
 * other: the sample data may give them a value.
 */
const TAG = /\*\|([^|*\s]{1,100})\|\*/g;
/** The tags of a conditional block, in any case as Mailchimp reads them. */
const CONTROL = /\*\|(?:(IF|IFNOT|ELSEIF):([^|*]{0,200})|(ELSE):|(END):IF)\|\*/gi;
/** `NAME`, or `NAME` an operator and a value. */
const CONDITION = /^\s*([^\s=!<>]+)\s*(?:(!=|>=|<=|=|>|<)(.*))?$/s;

type Value = string | number | boolean;

interface Frame {
  /** The block's opening tag's line, for a block left open (null: lines are not named). */
  line: number | null;
  /** Whether the text around the block is kept. */
  outer: boolean;
  /** Whether a branch of the block has been taken. */
  taken: boolean;
  /** Whether the current branch is kept. */
  keep: boolean;
  /** Whether `*|ELSE:|*` came. */
  pastElse: boolean;
}

export function fillMailchimp(
  source: string,
  data: Record<string, unknown>,
  { escape = true, lines = escape }: FillOptions = {},
): Filled {
  const own = (key: string) => Object.prototype.hasOwnProperty.call(data, key);
  const byCase = new Map<string, string>();
  for (const key of Object.keys(data).reverse()) byCase.set(key.toUpperCase(), key);
  const valueOf = (name: string): Value | undefined => {
    const upper = name.toUpperCase();
    const key = own(name) ? name : own(upper) ? upper : (byCase.get(upper) ?? null);
    const value = key === null ? undefined : data[key];
    return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
      ? value
      : undefined;
  };

  const kept = keptText(source, lines, (condition, line) => holds(condition, valueOf, line));
  const unfilled = new Set<string>();
  // Every tag may repeat a long value: past the size limit there is no point building the rest.
  const count = outputCounter();
  count(kept.length);
  // A tag in an HTML comment no reader sees is not reported (html-comments.ts).
  const hidden = escape ? htmlCommentsHidden(kept, 'mailchimp') : null;
  const output = kept.replace(TAG, (whole, name: string, at: number) => {
    const value = valueOf(name);
    if (value === undefined) {
      if (!hidden?.(at)) unfilled.add(name);
      return whole;
    }
    const filled = escape ? escapeHtml(String(value)) : String(value);
    count(filled.length - whole.length);
    return filled;
  });
  return { output, unfilled: [...unfilled] };
}

/** The source without the conditional tags and the branches not taken. */
function keptText(
  source: string,
  lines: boolean,
  test: (condition: string, line: number | null) => boolean,
): string {
  const stack: Frame[] = [];
  const parts: string[] = [];
  let from = 0;
  const keeping = () => stack.length === 0 || stack[stack.length - 1]!.keep;
  // Lines counted as the tags go, once over the source.
  let line = 1;
  let counted = 0;
  for (const match of source.matchAll(CONTROL)) {
    const at = match.index;
    for (let i = source.indexOf('\n', counted); i !== -1 && i < at; i = source.indexOf('\n', i + 1)) line++;
    counted = at;
    const named = lines ? line : null;
    if (keeping()) parts.push(source.slice(from, at));
    from = at + match[0].length;
    const kind = (match[1] ?? match[3] ?? match[4]!).toUpperCase();
    const frame = stack[stack.length - 1];
    if (kind === 'IF' || kind === 'IFNOT') {
      const outer = keeping();
      const holds = outer && test(match[2]!, named) !== (kind === 'IFNOT');
      stack.push({ line: named, outer, taken: holds, keep: holds, pastElse: false });
    } else if (!frame) {
      throw unbalanced(`${match[0]} has no *|IF:…|* before it`, named);
    } else if (kind === 'END') {
      stack.pop();
    } else if (frame.pastElse) {
      throw unbalanced(`${match[0]} comes after the block's *|ELSE:|*`, named);
    } else if (kind === 'ELSE') {
      frame.pastElse = true;
      frame.keep = frame.outer && !frame.taken;
      frame.taken = true;
    } else {
      const holds = frame.outer && !frame.taken && test(match[2]!, named);
      frame.keep = holds;
      frame.taken ||= holds;
    }
  }
  const open = stack[0];
  if (open) throw unbalanced('*|IF:…|* has no *|END:IF|*', open.line);
  parts.push(source.slice(from));
  return parts.join('');
}

const unbalanced = (reason: string, line: number | null) => templateInvalid('Mailchimp', reason, line);

/**
 * Whether a condition holds: `NAME` when the data gives it a value (not empty, not false);
 * `NAME=value` and the others compare numbers as numbers and anything else as text, exactly; with
 * no value in the data only `!=` holds.
 */
function holds(
  condition: string,
  valueOf: (name: string) => Value | undefined,
  line: number | null,
): boolean {
  const parsed = CONDITION.exec(condition);
  if (!parsed) throw unbalanced(`"${condition.trim()}" is not a condition such as FNAME or PLAN=pro`, line);
  const [, name, operator, operand] = parsed;
  const value = valueOf(name!);
  if (!operator) return value !== undefined && value !== '' && value !== false;
  if (value === undefined) return operator === '!=';
  const right = operand!.trim();
  const numbers = typeof value !== 'boolean' && isNumber(String(value)) && isNumber(right);
  const order = numbers
    ? Math.sign(Number(value) - Number(right))
    : String(value) === right
      ? 0
      : String(value) < right
        ? -1
        : 1;
  switch (operator) {
    case '=':
      return order === 0;
    case '!=':
      return order !== 0;
    case '>':
      return order > 0;
    case '<':
      return order < 0;
    case '>=':
      return order >= 0;
    default:
      return order <= 0;
  }
}

const isNumber = (text: string) => text.trim() !== '' && Number.isFinite(Number(text));
