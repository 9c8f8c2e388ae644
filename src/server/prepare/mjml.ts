import { createHash } from 'node:crypto';
import { failureReason, PrepareError, type SourceProblem } from './prepare-error.ts';

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

/** sfc32 (Chris Doty-Humphrey's small fast counting generator) from the SHA-256 of `seed`: [0, 1). */
function seededRandom(seed: string): () => number {
  const digest = createHash('sha256').update(seed).digest();
  let [a, b, c, d] = [0, 4, 8, 12].map((i) => digest.readUInt32LE(i)) as [number, number, number, number];
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

export async function compileMjml(source: string): Promise<string> {
  if (!/<mjml[\s>]/i.test(source)) {
    throw invalid([{ line: 1, message: NOT_MJML }], 'This MJML could not be compiled');
  }
  const include = /<mj-include\b/i.exec(source);
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
