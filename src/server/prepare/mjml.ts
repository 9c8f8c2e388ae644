import { failureReason, PrepareError, type SourceProblem } from './prepare-error.ts';
import { seededRandom } from './seeded-random.ts';

/**
 * MJML to HTML with the mjml package (docs/decisions/0067-mjml-in-the-transform-pool.md), in a
 * transform process only. No files and no network: includes are off (`ignoreIncludes`) and an
 * `<mj-include>` is refused with its line rather than silently dropped; no `.mjmlconfig` is read
 * (neither `useMjmlConfigOptions` nor `mjmlConfigPath`); the empty `filePath` keeps the parser from
 * even looking at the working directory. Fonts (`mj-font`, the defaults) only become <link> tags
 * in the output, fetched by whoever reads the email, never here.
 *
 * Validation is strict: an attribute or tag MJML does not know is an error at its line, not
 * silently dropped from what is sent. Minify and beautify are off (the output is what MJML renders).
 */
export const MJML_OPTIONS = {
  validationLevel: 'strict',
  minify: false,
  beautify: false,
  keepComments: true,
  ignoreIncludes: true,
  filePath: '',
  actualPath: '',
} as const;

/** `line` of `at` (1-based) in `text`. */
function lineAt(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function invalid(problems: SourceProblem[], lead: string): PrepareError {
  const first = problems[0];
  const list = problems
    .slice(0, 3)
    .map((p) => `line ${p.line}: ${p.message}`)
    .join('; ');
  const more = problems.length > 3 ? ` (and ${problems.length - 3} more)` : '';
  return new PrepareError('mjml_invalid', first ? `${lead}: ${list}${more}` : lead, problems.slice(0, 50));
}

/**
 * MJML reads the source after its merge tags are filled, where a loop repeats lines and a value may
 * hold several, so its lines are not the editor's. Each problem moves to the line of the source as
 * written that holds the same text (the nearest, when several do); a line the filling wrote keeps
 * its number and says how it was counted.
 */
export function atWrittenLines(err: PrepareError, written: string, filled: string): PrepareError {
  if (written === filled || !err.problems) return err;
  const writtenLines = written.split('\n').map((l) => l.trim());
  const filledLines = filled.split('\n');
  const problems = err.problems.map((p) => {
    const text = filledLines[p.line - 1]?.trim();
    let best: number | undefined;
    if (text)
      writtenLines.forEach((l, i) => {
        if (l === text && (best === undefined || Math.abs(i + 1 - p.line) < Math.abs(best - p.line)))
          best = i + 1;
      });
    return best !== undefined
      ? { ...p, line: best }
      : { ...p, message: `${p.message} (line ${p.line} of the MJML once its merge tags are filled)` };
  });
  const lead = err.message.slice(0, Math.max(0, err.message.indexOf(': line ')));
  return invalid(problems, lead || err.message);
}

interface MjmlValidationError {
  line?: number;
  message?: string;
}

const NOT_MJML =
  'An MJML document starts with <mjml> and holds an <mj-body>; for plain HTML, switch the source format to HTML.';

/**
 * The mjml package, loaded on the first MJML compile: it is the heaviest module of a transform
 * process (seconds to load on a busy machine), and most emails are HTML, so a process starts
 * without it.
 */
const importMjml = () => import('mjml');
let mjmlPackage: ReturnType<typeof importMjml> | undefined;
export const loadMjml = () => (mjmlPackage ??= importMjml());

/**
 * MJML draws the ids of a navbar's hamburger and of a carousel's images from `Math.random`
 * (mjml-core's genRandomHexString), so two compiles of one source differ: a preview could never
 * equal the send. Each compile draws from a generator seeded by its source instead, as mrml (MJML's
 * Rust port) made its ids deterministic; the same source gives the same ids, and several navbars or
 * carousels in one email still get distinct ones. Compiles take turns, so no other code sees the
 * swapped `Math.random` for longer than a compile, and never another compile's.
 */
let compiling: Promise<unknown> = Promise.resolve();

async function withRandomSeededBy<T>(seed: string, run: () => Promise<T>): Promise<T> {
  const before = compiling;
  let done!: () => void;
  compiling = new Promise<void>((resolve) => (done = resolve));
  await before;
  const random = Math.random;
  Math.random = seededRandom(seed);
  try {
    return await run();
  } finally {
    Math.random = random;
    done();
  }
}

/** The source with its comments blanked out, line breaks kept: offsets and lines stay as written. */
const withoutComments = (source: string) =>
  source.replace(/<!--[\s\S]*?(?:-->|$)/g, (comment) => comment.replace(/[^\n]/g, ' '));

/**
 * The body components whose content MJML reads as HTML up to their closing tag (mjml's
 * `endingTag` components): an MJML tag inside one is sent as it is, unrendered.
 */
const ENDING_TAGS = new Set([
  'mj-text',
  'mj-button',
  'mj-table',
  'mj-raw',
  'mj-navbar-link',
  'mj-social-element',
  'mj-accordion-title',
  'mj-accordion-text',
]);
/** Where an MJML tag starts: `<mj-…` or `</mj-…`, its name. */
const MJ_TAG_START = /<(\/?)(mj-[a-z-]+)\b/gi;

/**
 * For each offset of `source`, where a tag's attributes read from there end: the first `>` outside
 * quotes, or -1 (a quote never closed, or no `>` left). Computed once from the end, so reading every
 * tag costs one pass: a pattern like `(?:[^>"']|"[^"]*"|'[^']*')*?>` tried at each `<mj-` of a source
 * whose quotes never close scans to the end each time (3.5 s for 20,000 of them).
 */
function attributeEnds(source: string): Int32Array {
  const ends = new Int32Array(source.length + 1).fill(-1);
  let nextDouble = -1;
  let nextSingle = -1;
  for (let at = source.length - 1; at >= 0; at--) {
    const c = source[at];
    if (c === '>') ends[at] = at;
    else if (c === '"' || c === "'") {
      const closing = c === '"' ? nextDouble : nextSingle;
      ends[at] = closing === -1 ? -1 : ends[closing + 1]!;
      if (c === '"') nextDouble = at;
      else nextSingle = at;
    } else ends[at] = ends[at + 1]!;
  }
  return ends;
}

/** The MJML tags of a source, in order, as `<(/?)(mj-…)\b(attributes, quotes kept whole)(/?)>` reads them. */
export function* mjmlTags(
  source: string,
): Generator<{ index: number; closing: boolean; name: string; selfClosing: boolean }> {
  const ends = attributeEnds(source);
  let after = 0;
  for (const m of source.matchAll(MJ_TAG_START)) {
    if (m.index < after) continue; // inside the tag before it (in a quoted attribute)
    const from = m.index + m[0].length;
    const end = ends[from]!;
    if (end === -1) continue;
    after = end + 1;
    yield {
      index: m.index,
      closing: m[1] === '/',
      name: m[2]!.toLowerCase(),
      selfClosing: end - 1 >= from && source[end - 1] === '/',
    };
  }
}

/**
 * An ending tag left open (`<mj-text>` without its `</mj-text>`): MJML's parser takes everything up
 * to the next closing tag of its name as its HTML and compiles without a word, so the MJML tags
 * swallowed are sent as written and the button or text they were is lost; left open to the end, its
 * content is dropped. Found in one pass.
 */
function unclosedEndingTag(source: string): SourceProblem | undefined {
  let open: { name: string; at: number } | undefined;
  for (const tag of mjmlTags(source)) {
    if (open) {
      if (tag.closing && tag.name === open.name) open = undefined;
      else
        return {
          line: lineAt(source, open.at),
          message: `<${open.name}> is not closed before <${tag.closing ? '/' : ''}${tag.name}> on line ${lineAt(source, tag.index)}: MJML reads everything up to the next </${open.name}> as HTML, so the MJML tags in it would be sent unrendered. Close it with </${open.name}>.`,
        };
    } else if (!tag.closing && !tag.selfClosing && ENDING_TAGS.has(tag.name))
      open = { name: tag.name, at: tag.index };
  }
  // Left open to the end (a source cut short): MJML drops its content and sends an empty block.
  if (open) {
    return {
      line: lineAt(source, open.at),
      message: `<${open.name}> is never closed: MJML drops what follows it, so its content would be sent as an empty block. Close it with </${open.name}>.`,
    };
  }
  return undefined;
}

export async function compileMjml(source: string): Promise<string> {
  if (!/<mjml[\s>]/i.test(source)) {
    throw invalid([{ line: 1, message: NOT_MJML }], 'This MJML could not be compiled');
  }
  const read = withoutComments(source);
  const include = /<mj-include\b/i.exec(read);
  if (include) {
    throw invalid(
      [
        {
          line: lineAt(source, include.index),
          message:
            '<mj-include> is not available: there are no files to include. Paste the included MJML in its place.',
        },
      ],
      'This MJML cannot be compiled',
    );
  }
  const unclosed = unclosedEndingTag(read);
  if (unclosed) throw invalid([unclosed], 'This MJML is not valid');
  const { default: mjml2html } = await loadMjml();
  try {
    const result = await withRandomSeededBy(source, () => mjml2html(source, MJML_OPTIONS));
    return result.html;
  } catch (err) {
    const errors = (err as { errors?: MjmlValidationError[] }).errors;
    if (Array.isArray(errors) && errors.length > 0) {
      throw invalid(
        errors.map((e) => ({ line: e.line ?? 1, message: e.message ?? 'invalid MJML' })),
        'This MJML is not valid',
      );
    }
    if (err instanceof RangeError) throw err;
    const reason = failureReason(err);
    throw invalid([{ line: 1, message: reason }], 'This MJML could not be compiled');
  }
}
