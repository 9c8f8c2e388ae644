#!/usr/bin/env node
// The Proofmail command-line tool (docs/decisions/0075-cli.md): plain ESM JavaScript with JSDoc
// types, so `node bin/proofmail.mjs` runs from a clone without a build step and `npx proofmail`
// runs from an installed package. It talks to the public API (GET /api/openapi.json) with a
// personal API key, as any other client would.
import { readFileSync, realpathSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';

/** Exit codes: each failure has its own, so a CI step can tell them apart. */
export const EXIT = {
  ok: 0,
  /** The checklist has findings at or above --fail-on. */
  checklist: 1,
  /** Wrong or missing arguments. */
  usage: 2,
  /** A local file is missing or unreadable, or the data file is not valid JSON. */
  file: 3,
  /** The server refused the request as invalid (its message is printed). */
  invalid: 4,
  /** No API key, or the key is not valid (revoked, mistyped). */
  auth: 5,
  /** A limit was reached: monthly allowance, sends per minute, or the plan does not include it. */
  limit: 6,
  /** The key's owner has not verified their email address. */
  unverified: 7,
  /** The server could not be reached. */
  unreachable: 8,
  /** The server failed (5xx) or answered something that is not the Proofmail API. */
  server: 9,
};

const DEFAULT_URL = 'http://localhost:3000';
const REQUEST_TIMEOUT_MS = 120_000;
/** The server's cap on an email's HTML (MAX_HTML_BYTES in src/shared/contract/email.ts), for messages. */
const MAX_HTML = '1 MB';

class CliError extends Error {
  /**
   * @param {string} message
   * @param {number} exitCode
   * @param {string} [code]
   */
  constructor(message, exitCode, code) {
    super(message);
    this.exitCode = exitCode;
    this.code = code;
  }
}

/**
 * @typedef {{ severity: 'error' | 'warning' | 'info', message: string, hint?: string, line?: number }} Finding
 * @typedef {{ id: string, title: string, status: string, findings: Finding[] }} Check
 * @typedef {{ errors: number, warnings: number, text: string }} Summary
 * @typedef {{ stdout: NodeJS.WritableStream & { isTTY?: boolean }, stderr: NodeJS.WritableStream & { isTTY?: boolean }, env: Record<string, string | undefined> }} Io
 */

/** Progress on stderr: a spinner on a terminal, plain lines in CI or a pipe, nothing with --json. */
function progress(/** @type {Io} */ io, /** @type {boolean} */ quiet) {
  if (quiet) return { step: (/** @type {string} */ _message) => {}, done: () => {} };
  const animate = Boolean(io.stderr.isTTY) && !io.env.CI;
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  let text = '';
  const clear = () => {
    if (timer) {
      clearInterval(timer);
      timer = undefined;
      io.stderr.write(`\r\x1b[2K`);
    }
  };
  return {
    /** @param {string} message */
    step(message) {
      clear();
      text = message;
      if (!animate) {
        io.stderr.write(`${message}\n`);
        return;
      }
      let i = 0;
      io.stderr.write(`${frames[0]} ${text}`);
      timer = setInterval(() => {
        i = (i + 1) % frames.length;
        io.stderr.write(`\r${frames[i]} ${text}`);
      }, 80);
    },
    done: clear,
  };
}

/**
 * @param {Io} io
 * @returns {{ baseUrl: string, key: string | undefined }}
 */
function settings(io) {
  const raw = (io.env.PROOFMAIL_URL || DEFAULT_URL).replace(/\/+$/, '');
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(`PROOFMAIL_URL is not an http(s) address: ${raw}`, EXIT.usage, 'bad_url');
  }
  return { baseUrl: raw, key: io.env.PROOFMAIL_API_KEY || undefined };
}

function requireKey(/** @type {string | undefined} */ key) {
  if (!key) {
    throw new CliError(
      'PROOFMAIL_API_KEY is not set. Create a key in Proofmail under Account → API Keys and set it in the environment.',
      EXIT.auth,
      'missing_api_key',
    );
  }
  return key;
}

/** Maps a refusal of the API to a message and an exit code. */
function refusal(/** @type {number} */ status, /** @type {{ error?: string, code?: string }} */ body) {
  const message = body.error || `The server answered ${status}`;
  const code = body.code;
  if (status === 401) {
    // The server's own sentence for a refused key says the same as this one: only one is printed.
    return new CliError(
      code === 'invalid_api_key'
        ? 'The API key was refused: it is not valid or has been revoked. Create a new key in Proofmail under Account → API Keys and set it in PROOFMAIL_API_KEY.'
        : `Not authenticated: ${message}`,
      EXIT.auth,
      code,
    );
  }
  if (status === 403 && code === 'email_unverified') return new CliError(message, EXIT.unverified, code);
  if (status === 403 && code === 'api_key_not_allowed') return new CliError(message, EXIT.auth, code);
  if (status === 429 || (status === 403 && code === 'plan_required'))
    return new CliError(message, EXIT.limit, code);
  if (status >= 500) return new CliError(`The server failed: ${message}`, EXIT.server, code);
  return new CliError(message, EXIT.invalid, code);
}

/**
 * One API call: JSON in and out, the key as a bearer token, every failure a CliError.
 * @param {{ baseUrl: string, key?: string }} api
 * @param {string} method
 * @param {string} apiPath
 * @param {unknown} [body]
 * @returns {Promise<any>}
 */
async function call(api, method, apiPath, body) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json', 'user-agent': 'proofmail-cli' };
  if (api.key) headers.authorization = `Bearer ${api.key}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  /** @type {Response} */
  let res;
  try {
    res = await fetch(`${api.baseUrl}${apiPath}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
  } catch (err) {
    throw unreachable(api.baseUrl, err);
  }
  const text = await res.text();
  /** @type {any} */
  let json;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    throw new CliError(
      `${api.baseUrl} answered ${res.status} with something that is not the Proofmail API. Check PROOFMAIL_URL.`,
      EXIT.server,
      'not_proofmail',
    );
  }
  if (!res.ok) throw refusal(res.status, json ?? {});
  return json;
}

function unreachable(/** @type {string} */ baseUrl, /** @type {any} */ err) {
  const cause = err?.cause ?? err;
  const code = cause?.code ?? cause?.name ?? '';
  const why =
    code === 'ECONNREFUSED'
      ? 'connection refused. Is the server running?'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name does not resolve'
        : code === 'TimeoutError' || code === 'ETIMEDOUT' || code === 'UND_ERR_CONNECT_TIMEOUT'
          ? 'no answer in time'
          : String(cause?.message ?? err);
  const stop = /[.?!]$/.test(why) ? '' : '.';
  return new CliError(
    `Cannot reach Proofmail at ${baseUrl}: ${why}${stop} Check PROOFMAIL_URL.`,
    EXIT.unreachable,
    'unreachable',
  );
}

/**
 * A file's text as an editor shows it: UTF-8, or UTF-16 with its byte-order mark (what Windows
 * editors save as "Unicode"); a byte-order mark is not part of the text. Bytes that are not UTF-8
 * are refused where they are, never sent as U+FFFD in place of what was written; so is a NUL,
 * which no text file has (the server would refuse it without naming the file).
 * @param {string} file
 */
async function readText(file) {
  /** @type {Buffer} */
  let bytes;
  try {
    bytes = await readFile(file);
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code;
    const why =
      code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'it is a folder' : 'cannot read it';
    throw new CliError(`${file}: ${why}`, EXIT.file, 'file');
  }
  const bom =
    bytes[0] === 0xff && bytes[1] === 0xfe
      ? 'utf-16le'
      : bytes[0] === 0xfe && bytes[1] === 0xff
        ? 'utf-16be'
        : undefined;
  /** @type {string} */
  let text;
  if (bom) {
    try {
      text = new TextDecoder(bom, { fatal: true }).decode(bytes);
    } catch {
      throw new CliError(
        `${file}: not valid ${bom.toUpperCase()} text. Save it as UTF-8.`,
        EXIT.file,
        'encoding',
      );
    }
  } else {
    const utf16 = bytes.includes(0) && looksUtf16(bytes);
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new CliError(`${file}: ${notUtf8(bytes, utf16)}`, EXIT.file, 'encoding');
    }
    if (utf16) throw new CliError(`${file}: ${UTF16_WITHOUT_BOM}`, EXIT.file, 'encoding');
  }
  const nul = text.indexOf('\0');
  if (nul >= 0) {
    throw new CliError(
      `${file}: not a text file (a NUL character at ${where(text, nul)}). Check that it is the right file.`,
      EXIT.file,
      'not_text',
    );
  }
  return text;
}

const UTF16_WITHOUT_BOM = 'looks like UTF-16 without a byte-order mark: save it as UTF-8.';

/**
 * Whether a file without a byte-order mark is UTF-16 all the same. Markup is mostly ASCII, and an
 * ASCII character in UTF-16 is its byte beside a zero byte, so the zeros fall on one side: odd
 * offsets in little-endian, even ones in big-endian. A binary file's zeros fall on both.
 * @param {Buffer} bytes
 */
function looksUtf16(bytes) {
  const zeros = [0, 0]; // at even offsets, at odd ones
  for (let i = 0; i < bytes.length; i++) if (bytes[i] === 0) zeros[i % 2]++;
  const [even = 0, odd = 0] = zeros;
  const side = Math.max(even, odd);
  return side >= bytes.length / 8 && Math.min(even, odd) * 16 < side;
}

/** `line L, column C` of the character at `at` in `text`. */
function where(/** @type {string} */ text, /** @type {number} */ at) {
  const before = text.slice(0, at);
  return `line ${before.split('\n').length}, column ${at - before.lastIndexOf('\n')}`;
}

/**
 * Where a file stops being UTF-8 text, for the message. In a file that looks like UTF-16, the
 * zero bytes are halves of its characters: the column counts the characters, not them.
 * @param {Buffer} bytes
 * @param {boolean} utf16
 */
function notUtf8(bytes, utf16) {
  const text = new TextDecoder('utf-8').decode(bytes);
  const advice = utf16 ? `; it ${UTF16_WITHOUT_BOM}` : '. Save it as UTF-8.';
  for (let at = text.indexOf('\uFFFD'); at >= 0; at = text.indexOf('\uFFFD', at + 1)) {
    const offset = Buffer.byteLength(text.slice(0, at)) + (bytes[0] === 0xef && bytes[1] === 0xbb ? 3 : 0);
    // A U+FFFD written in the file is text; the first one that is not marks the bad bytes.
    if (bytes[offset] === 0xef && bytes[offset + 1] === 0xbf && bytes[offset + 2] === 0xbd) continue;
    const before = utf16 ? text.slice(0, at).replaceAll('\0', '') : text.slice(0, at);
    const byte = (bytes[offset] ?? 0).toString(16).toUpperCase().padStart(2, '0');
    return `not UTF-8 text (byte 0x${byte} at ${where(before, before.length)})${advice}`;
  }
  return `not UTF-8 text${advice}`;
}

/**
 * The body of a send or preview: `.mjml` files go as MJML, `--data` as the template's sample data.
 * @param {string} file
 * @param {{ subject?: string, inlineCss?: boolean, text?: string, data?: string, syntax?: string }} opts
 */
async function emailBody(file, opts) {
  const html = await readText(file);
  // Refused here, naming the file: the server's answer would ask for "HTML content" (and for `check`,
  // which takes none, a recipient).
  if (!html.trim()) throw new CliError(`${file}: the file is empty`, EXIT.file, 'empty_file');
  /** @type {Record<string, unknown>} */
  const body = { html, inlineCss: Boolean(opts.inlineCss) };
  if (opts.subject !== undefined) body.subject = opts.subject;
  // The plain-text part as written (its merge tags filled like the HTML's); absent: generated.
  if (opts.text !== undefined) body.text = await readText(opts.text);
  if (path.extname(file).toLowerCase() === '.mjml') body.format = 'mjml';
  if (opts.data !== undefined) {
    const raw = await readText(opts.data);
    /** @type {unknown} */
    let data;
    try {
      data = JSON.parse(raw);
    } catch (err) {
      throw new CliError(
        `${opts.data}: not valid JSON (${/** @type {Error} */ (err).message})`,
        EXIT.file,
        'invalid_data',
      );
    }
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      throw new CliError(`${opts.data}: the sample data must be a JSON object`, EXIT.file, 'invalid_data');
    }
    body.template = { syntax: opts.syntax ?? 'handlebars', data };
  } else if (opts.syntax !== undefined) {
    body.template = { syntax: opts.syntax, data: {} };
  }
  return body;
}

/**
 * @param {Check[] | null} checks
 * @returns {Summary}
 */
export function summarize(checks) {
  if (!checks) return { errors: 0, warnings: 0, text: 'checklist not available on this server' };
  const all = checks.flatMap((c) => c.findings ?? []);
  const errors = all.filter((f) => f.severity === 'error').length;
  const warnings = all.filter((f) => f.severity === 'warning').length;
  const plural = (/** @type {number} */ n, /** @type {string} */ w) => `${n} ${w}${n === 1 ? '' : 's'}`;
  return { errors, warnings, text: `${plural(errors, 'error')}, ${plural(warnings, 'warning')}` };
}

/** Whether the checklist is at or above the --fail-on level. */
export function fails(/** @type {Summary} */ summary, /** @type {string | undefined} */ failOn) {
  if (failOn === 'error') return summary.errors > 0;
  if (failOn === 'warning') return summary.errors + summary.warnings > 0;
  return false;
}

/** @param {unknown} answer @returns {Check[] | null} */
const checksOf = (answer) => {
  const checks = /** @type {{ checks?: unknown }} */ (answer)?.checks;
  return Array.isArray(checks) ? /** @type {Check[]} */ (checks) : null;
};

function printChecks(/** @type {Io} */ io, /** @type {Check[] | null} */ checks) {
  if (!checks) return;
  for (const check of checks) {
    for (const f of check.findings ?? []) {
      const where = f.line ? ` (line ${f.line})` : '';
      io.stdout.write(`  ${f.severity.padEnd(7)} ${check.title}: ${f.message}${where}\n`);
    }
  }
}

/**
 * @param {Io} io
 * @param {string} file
 * @param {Record<string, any>} opts
 */
async function send(io, file, opts) {
  const { baseUrl, key } = settings(io);
  const api = { baseUrl, key: requireKey(key) };
  const body = await emailBody(file, opts);
  const bar = progress(io, opts.json);
  try {
    if (opts.share) {
      // Share links are Pro: asked before the send, so that a Free account's --share neither uses
      // one of its monthly sends nor leaves a CI retry to send again.
      bar.step('Checking that the plan includes share links');
      const plan = (await call(api, 'GET', '/api/user/usage'))?.user?.plan;
      if (typeof plan === 'string' && plan !== 'pro') {
        throw new CliError(
          "--share: public share links are a Pro feature and this key's account is not on Pro. Nothing was sent. Upgrade to Pro, or send without --share.",
          EXIT.limit,
          'plan_required',
        );
      }
    }
    bar.step(`Sending ${path.basename(file)} to ${opts.to}`);
    /** @type {{ id: string }} */
    let sent;
    try {
      sent = await call(api, 'POST', '/api/email/send', {
        ...body,
        to: opts.to,
        ...(opts.parent ? { parentId: opts.parent } : {}),
      });
    } catch (err) {
      throw inArgumentTerms(err, file, opts);
    }
    const { id } = sent;
    const url = `${baseUrl}/app/email/${id}`;
    /** @type {string | null} */
    let shareUrl = null;
    // The email is sent: what fails after it (the share link, reading the checklist, for any
    // reason) is reported with it, never in place of it, so that the id is not lost.
    /** @type {CliError | undefined} */
    let shareError;
    const sentBut = (/** @type {unknown} */ err, /** @type {string} */ what) => {
      const failure =
        err instanceof CliError
          ? err
          : new CliError(String(/** @type {Error} */ (err)?.message ?? err), EXIT.server, 'unexpected');
      failure.message = `Sent ${id} (${url}), but ${what}: ${failure.message}`;
      return failure;
    };
    if (opts.share) {
      bar.step('Creating the share link');
      try {
        shareUrl = (await call(api, 'POST', `/api/email/${id}/share`)).publicUrl;
      } catch (err) {
        shareError = sentBut(err, 'no share link');
      }
    }
    bar.step('Reading the checklist');
    /** @type {Check[] | null} */
    let checks = null;
    try {
      checks = checksOf(await call(api, 'GET', `/api/email/${id}`));
      // A server that keeps no checklist with the email may still answer one for a preview.
      if (!checks) checks = checksOf(await call(api, 'POST', '/api/email/preview', { ...body, to: opts.to }));
    } catch (err) {
      shareError ??= sentBut(err, 'its checklist could not be read');
    }
    bar.done();
    const summary =
      !checks && shareError ? { errors: 0, warnings: 0, text: 'checklist not read' } : summarize(checks);
    if (opts.json) {
      const failed = shareError
        ? { error: shareError.message, code: shareError.code ?? null, exitCode: shareError.exitCode }
        : {};
      io.stdout.write(`${JSON.stringify({ id, url, shareUrl, summary, checks, ...failed })}\n`);
    } else {
      io.stdout.write(`Sent: ${id}\n${url}\n`);
      if (shareUrl) io.stdout.write(`Share link: ${shareUrl}\n`);
      io.stdout.write(`Checklist: ${summary.text}\n`);
      printChecks(io, checks);
    }
    if (!shareError) return verdict(io, summary, checks, opts.failOn);
    io.stderr.write(`proofmail: ${shareError.message}\n`);
    return shareError.exitCode;
  } finally {
    bar.done();
  }
}

/**
 * @param {Io} io
 * @param {string} file
 * @param {Record<string, any>} opts
 */
async function check(io, file, opts) {
  const { baseUrl, key } = settings(io);
  const api = { baseUrl, key: requireKey(key) };
  const body = await emailBody(file, opts);
  const bar = progress(io, opts.json);
  try {
    bar.step(`Checking ${path.basename(file)}`);
    /** @type {unknown} */
    let preview;
    try {
      preview = await call(api, 'POST', '/api/email/preview', body);
    } catch (err) {
      throw inArgumentTerms(err, file, opts);
    }
    const checks = checksOf(preview);
    bar.done();
    const summary = summarize(checks);
    if (opts.json) {
      io.stdout.write(`${JSON.stringify({ summary, checks })}\n`);
    } else {
      io.stdout.write(`Checklist: ${summary.text}\n`);
      printChecks(io, checks);
    }
    return verdict(io, summary, checks, opts.failOn);
  } finally {
    bar.done();
  }
}

/**
 * A refusal of a send or a preview in the terms of the command line: the file or the option it is
 * about, not the API's field (src/shared/contract/email.ts, src/server/http/errors.ts).
 * @param {unknown} err
 * @param {string} file
 * @param {{ text?: string, parent?: string }} opts
 */
function inArgumentTerms(err, file, opts) {
  if (!(err instanceof CliError)) return err;
  if (err.code === 'html_too_large') err.message = `${file}: ${err.message}`;
  else if (err.code === 'body_too_large')
    err.message = `${file}: too large: the server takes at most ${MAX_HTML} of HTML.`;
  else if (err.code === 'text_too_large' && opts.text) err.message = `${opts.text}: ${err.message}`;
  else if (opts.parent && err.code === 'not_found')
    err.message = `--parent ${opts.parent}: you have no email with this id (it may have been deleted). Use an id that proofmail send printed.`;
  else if (opts.parent && err.message.startsWith('parentId:'))
    err.message = `--parent ${opts.parent}: not an email id. Use an id that proofmail send printed (a UUID).`;
  return err;
}

function verdict(
  /** @type {Io} */ io,
  /** @type {Summary} */ summary,
  /** @type {Check[] | null} */ checks,
  /** @type {string | undefined} */ failOn,
) {
  if (!checks && failOn)
    io.stderr.write(`--fail-on ${failOn} not applied: checklist not available on this server\n`);
  if (fails(summary, failOn)) {
    io.stderr.write(`Failing: the checklist has ${summary.text} (--fail-on ${failOn})\n`);
    return EXIT.checklist;
  }
  return EXIT.ok;
}

/** A failure with --json: one object on stdout (docs/decisions/0075-cli.md). */
function printFailure(
  /** @type {Io} */ io,
  /** @type {string} */ error,
  /** @type {string | null} */ code,
  /** @type {number} */ exitCode,
) {
  io.stdout.write(`${JSON.stringify({ error, code, exitCode })}\n`);
}

/** The version of the package this file is in: the package.json beside bin/. */
function version() {
  try {
    return String(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);
  } catch {
    return 'unknown';
  }
}

/**
 * Runs the CLI with `argv` (without node and the script) and answers the exit code.
 * @param {string[]} argv
 * @param {Io} io
 * @returns {Promise<number>}
 */
export async function run(argv, io) {
  let json = false;
  /** @type {Promise<number> | undefined} */
  let action;
  const program = new Command('proofmail')
    .description('Send real test emails from the command line or CI, and read their pre-send checklist.')
    .version(version(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .addHelpText(
      'after',
      `
Environment:
  PROOFMAIL_URL      the Proofmail server (default ${DEFAULT_URL})
  PROOFMAIL_API_KEY  a personal API key (Account → API Keys)

Exit codes: 0 ok, 1 checklist at or above --fail-on, 2 usage, 3 local file, 4 request refused,
5 API key, 6 limit reached, 7 unverified account, 8 server unreachable, 9 server error.`,
    );
  const failOn = () =>
    new Option('--fail-on <level>', 'exit 1 when the checklist has findings at or above this level').choices([
      'error',
      'warning',
    ]);
  const syntax = () =>
    new Option('--syntax <syntax>', 'merge-tag syntax of --data').choices([
      'handlebars',
      'liquid',
      'mailchimp',
    ]);

  program
    .command('send')
    .description('send FILE (.html or .mjml) as a test email and print its checklist')
    .argument('<file>', 'the email: .html, or .mjml to send as MJML')
    .requiredOption('--to <addresses>', 'recipients, comma-separated (at most 5)')
    .option('--subject <subject>', 'the subject line')
    .option('--inline-css', 'inline the CSS before sending')
    .option('--text <file>', 'the plain-text part (default: generated from the HTML)')
    .option('--data <file>', 'sample data (JSON) for merge tags')
    .addOption(syntax())
    .option('--parent <id>', "send as the next version of that email's thread (any version's id)")
    .option('--share', 'create a public share link (Pro)')
    .option('--json', 'print one JSON object: id, url, shareUrl, summary, checks')
    .addOption(failOn())
    .action((file, opts) => {
      json = Boolean(opts.json);
      action = send(io, file, opts);
    });

  program
    .command('check')
    .description('run the checklist on FILE without sending it (a preview)')
    .argument('<file>', 'the email: .html or .mjml')
    .option('--subject <subject>', 'the subject line')
    .option('--inline-css', 'inline the CSS first')
    .option('--text <file>', 'the plain-text part (default: generated from the HTML)')
    .option('--data <file>', 'sample data (JSON) for merge tags')
    .addOption(syntax())
    .option('--json', 'print one JSON object: summary, checks')
    .addOption(failOn())
    .action((file, opts) => {
      json = Boolean(opts.json);
      action = check(io, file, opts);
    });

  program
    .command('open')
    .description("print the address of an email's page in Proofmail")
    .argument('<id>', 'the email id that send printed')
    .action((id) => {
      const { baseUrl } = settings(io);
      io.stdout.write(`${baseUrl}/app/email/${encodeURIComponent(id)}\n`);
      action = Promise.resolve(EXIT.ok);
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return action ? await action : EXIT.ok;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0)
        return EXIT.ok;
      // commander has printed its message on stderr; with --json a script reads stdout, so the
      // failure is there too (the action that would tell --json never ran): --json before any `--`.
      const end = argv.indexOf('--');
      if ((end < 0 ? argv : argv.slice(0, end)).includes('--json'))
        printFailure(io, err.message.replace(/^error: /, ''), 'usage', EXIT.usage);
      return EXIT.usage;
    }
    if (err instanceof CliError) {
      io.stderr.write(`proofmail: ${err.message}\n`);
      if (json) printFailure(io, err.message, err.code ?? null, err.exitCode);
      return err.exitCode;
    }
    io.stderr.write(`proofmail: unexpected failure: ${String(/** @type {Error} */ (err)?.stack ?? err)}\n`);
    return EXIT.server;
  }
}

// Run when executed (node bin/proofmail.mjs, or npx proofmail through node_modules/.bin's link),
// not when imported.
const invoked = process.argv[1] ? realpathSync(process.argv[1]) : '';
if (invoked === realpathSync(fileURLToPath(import.meta.url))) {
  // A reader that stops early (`proofmail --help | head`) closes the pipe: nothing is left to say.
  process.stdout.on('error', (err) => {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
  const code = await run(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
  process.exitCode = code;
}
