#!/usr/bin/env node
// The Proofmail command-line tool (docs/decisions/0075-cli.md): plain ESM JavaScript with JSDoc
// types, so `node bin/proofmail.mjs` runs from a clone without a build step and `npx proofmail`
// runs from an installed package. It talks to the public API (GET /api/openapi.json) with a
// personal API key, as any other client would.
import diagnostics from 'node:diagnostics_channel';
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
  /**
   * The server failed (5xx), answered something that is not the Proofmail API, or took the request
   * and gave no answer (the connection closed, or no answer in time).
   */
  server: 9,
};

const DEFAULT_URL = 'http://localhost:3000';
const REQUEST_TIMEOUT_MS = 120_000;
/** The server's caps on the HTML and on the text part (MAX_HTML_BYTES in src/shared/contract/email.ts). */
const MAX_SOURCE_BYTES = 1024 * 1024;
/** The server's cap on the sample data, as compact JSON (MAX_TEMPLATE_DATA_BYTES, same file). */
const MAX_DATA_BYTES = 64 * 1024;
/** The send and preview routes' cap on a request's JSON (src/server/features/email/email.routes.ts). */
const MAX_REQUEST_BYTES = 3 * MAX_SOURCE_BYTES;
/**
 * The server's own 404s for the calls this file makes: an email the key's owner does not have
 * (src/server/features/email/email.service.ts, send.service.ts for `parentId`, share.service.ts).
 * An address the server has no route for answers `Not found` (an /api path) or `Page not found`
 * (src/server/http/spa.ts) with the same code: only the message tells them apart.
 */
const API_NOT_FOUND = ['Email not found'];

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
 * @typedef {{ stdout: NodeJS.WritableStream & { isTTY?: boolean }, stderr: NodeJS.WritableStream & { isTTY?: boolean }, env: Record<string, string | undefined>, requestTimeoutMs?: number }} Io
 *   `requestTimeoutMs` is for tests that call run() (tests/api/cli.test.ts): no option or
 *   environment variable sets it.
 * @typedef {{ baseUrl: string, key?: string, timeoutMs: number }} Api
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
 * @returns {{ baseUrl: string, key: string | undefined, timeoutMs: number }}
 */
function settings(io) {
  const raw = (io.env.PROOFMAIL_URL || DEFAULT_URL).replace(/\/+$/, '');
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
  } catch {
    throw new CliError(`PROOFMAIL_URL is not an http(s) address: ${raw}`, EXIT.usage, 'bad_url');
  }
  // Space around the key (a secret pasted with its line break) is no part of it; fetch drops it too.
  const key = io.env.PROOFMAIL_API_KEY?.trim() || undefined;
  return { baseUrl: raw, key, timeoutMs: io.requestTimeoutMs ?? REQUEST_TIMEOUT_MS };
}

/**
 * What a bearer token is made of (RFC 6750's b64token); an API key is `pm_` and base64url
 * (src/server/accounts/api-keys.ts). Anything else, quotes or a space, can never be a key.
 */
const BEARER_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

function requireKey(/** @type {string | undefined} */ key) {
  if (!key) {
    throw new CliError(
      'PROOFMAIL_API_KEY is not set. Create a key in Proofmail under Account → API Keys and set it in the environment.',
      EXIT.auth,
      'missing_api_key',
    );
  }
  if (!BEARER_TOKEN.test(key)) {
    const why = /^["'].*["']$/s.test(key) ? 'it is in quotes' : 'it holds characters that no key has';
    throw new CliError(
      `PROOFMAIL_API_KEY is not a valid API key: ${why}. Set it to the key alone (pm_ and letters, digits, - and _), as Proofmail showed it under Account → API Keys.`,
      EXIT.auth,
      'invalid_api_key',
    );
  }
  return key;
}

/**
 * Maps a refusal of the API to a message and an exit code.
 * @param {number} status
 * @param {{ error?: string, code?: string }} body
 * @param {string | undefined} key the key the request carried
 */
function refusal(status, body, key) {
  const message = body.error || `The server answered ${status}`;
  const code = body.code;
  if (status === 401) {
    // A `pm_` key the server does not know is `invalid_api_key`; any other token is tried as a
    // session and is `unauthenticated` (src/server/http/auth.ts). Either way it is the key, said
    // once: the server's own sentence would only repeat it.
    return new CliError(
      key && !key.startsWith('pm_')
        ? 'The API key was refused: PROOFMAIL_API_KEY does not start with pm_, as every Proofmail API key does. Create a key in Proofmail under Account → API Keys and set it in PROOFMAIL_API_KEY.'
        : 'The API key was refused: it is not valid or has been revoked. Create a new key in Proofmail under Account → API Keys and set it in PROOFMAIL_API_KEY.',
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
 * @param {Api} api
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
  const url = new URL(`${api.baseUrl}${apiPath}`);
  // Whether the request was written to a connection: undici, Node's fetch, says so on this
  // diagnostics channel. A failure before it (refused, no such host, TLS) reached nothing.
  let written = false;
  const onWritten = (/** @type {any} */ message) => {
    if (message?.request?.method === method && message.request.path === url.pathname + url.search)
      written = true;
  };
  diagnostics.subscribe('undici:client:sendHeaders', onWritten);
  /** @type {Response} */
  let res;
  try {
    res = await fetch(url, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(api.timeoutMs),
      // A redirect is not followed: fetch would resend a POST as a GET (answered 405) and could take
      // the request, and the key, to another address. It is a wrong PROOFMAIL_URL, said as such.
      redirect: 'manual',
    });
  } catch (err) {
    throw noAnswer(api.baseUrl, err, written);
  } finally {
    diagnostics.unsubscribe('undici:client:sendHeaders', onWritten);
  }
  if (res.status >= 300 && res.status < 400) {
    await res.body?.cancel().catch(() => {});
    const location = res.headers.get('location');
    throw location
      ? redirected(api.baseUrl, apiPath, new URL(location, url))
      : notProofmail(api.baseUrl, `answered ${res.status} without the Proofmail API's answer`);
  }
  /** @type {string} */
  let text;
  try {
    text = await res.text();
  } catch (err) {
    throw noAnswer(api.baseUrl, err, true);
  }
  /** @type {any} */
  let json;
  try {
    json = text ? JSON.parse(text) : {};
  } catch {
    json = undefined;
  }
  // A gateway in front of the server that gave up waiting (502, 504) or refused (503), with a page,
  // nothing or JSON of its own: the server may have had the request, which a send must say
  // (GATEWAY_STATUSES). The API's own 503s carry its { error, code }.
  if (
    GATEWAY_STATUSES.has(res.status) &&
    !(typeof json?.error === 'string' && typeof json?.code === 'string')
  )
    throw new CliError(
      `A gateway in front of Proofmail at ${api.baseUrl} answered ${res.status} instead of the server.`,
      EXIT.server,
      'no_answer',
    );
  if (json === undefined)
    throw notProofmail(api.baseUrl, `answered ${res.status} with something that is not the Proofmail API`);
  json ??= {};
  // A 405, or a 404 that is not one of the API's own, is an address with no such route: not the API.
  if (res.status === 405 || (res.status === 404 && !API_NOT_FOUND.includes(json.error))) {
    const answer = typeof json.error === 'string' ? `${res.status} "${json.error}"` : String(res.status);
    throw notProofmail(api.baseUrl, `has no ${method} ${apiPath} (it answered ${answer})`);
  }
  if (!res.ok) throw refusal(res.status, json, api.key);
  return json;
}

/**
 * A proxy's own answers for a server that failed it or took too long: the request may have reached
 * the server (and a send gone out), so they are `no_answer`, as a connection closed after the
 * request is.
 */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

/** An answer that is not the Proofmail API's: PROOFMAIL_URL is not the server's address. */
function notProofmail(/** @type {string} */ baseUrl, /** @type {string} */ what) {
  return new CliError(`${baseUrl} ${what}. Check PROOFMAIL_URL.`, EXIT.server, 'not_proofmail');
}

/**
 * A redirect, named with where it goes; when it is the same call at another address (http to
 * https, another host), that address is what PROOFMAIL_URL should be.
 * @param {string} baseUrl
 * @param {string} apiPath
 * @param {URL} to
 */
function redirected(baseUrl, apiPath, to) {
  const elsewhere = to.href.endsWith(apiPath) ? to.href.slice(0, -apiPath.length) : baseUrl;
  const hint =
    elsewhere !== baseUrl ? ` If ${elsewhere} is your Proofmail server, set PROOFMAIL_URL to it.` : '';
  return new CliError(
    `${baseUrl} redirects ${apiPath} to ${to.href}: redirects are not followed (the key goes only to PROOFMAIL_URL). Check PROOFMAIL_URL.${hint}`,
    EXIT.server,
    'redirect',
  );
}

/**
 * A request that got no answer. Before it was written, it reached nothing: the server is
 * unreachable (exit 8). After, the server had it and may have acted on it (a send may have gone
 * out), then gave no answer: a server failure (exit 9), not a reason to send again.
 * @param {string} baseUrl
 * @param {any} err
 * @param {boolean} written
 */
function noAnswer(baseUrl, err, written) {
  const cause = err?.cause ?? err;
  // A string code is the system's or undici's; AbortSignal.timeout's DOMException has a numeric
  // one (23), so its name says what it is.
  const code = typeof cause?.code === 'string' ? cause.code : (cause?.name ?? '');
  const why =
    code === 'ECONNREFUSED'
      ? 'connection refused. Is the server running?'
      : code === 'ENOTFOUND' || code === 'EAI_AGAIN'
        ? 'the host name does not resolve'
        : code === 'TimeoutError' ||
            code === 'ETIMEDOUT' ||
            code === 'UND_ERR_CONNECT_TIMEOUT' ||
            code === 'UND_ERR_HEADERS_TIMEOUT' ||
            code === 'UND_ERR_BODY_TIMEOUT'
          ? 'no answer in time'
          : written && (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE')
            ? 'the connection closed before the answer came'
            : String(cause?.message ?? err);
  const stop = /[.?!]$/.test(why) ? '' : '.';
  if (written) {
    return new CliError(`No answer from Proofmail at ${baseUrl}: ${why}${stop}`, EXIT.server, 'no_answer');
  }
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
  const { baseUrl, key, timeoutMs } = settings(io);
  const api = { baseUrl, key: requireKey(key), timeoutMs };
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
    const request = { ...body, to: opts.to, ...(opts.parent ? { parentId: opts.parent } : {}) };
    try {
      withinRequestCap(file, opts, request);
      sent = await call(api, 'POST', '/api/email/send', request);
    } catch (err) {
      // The server had the send and did not answer: it may have gone out. A retry would send twice.
      if (err instanceof CliError && err.code === 'no_answer')
        err.message += ` The email may have been sent: look for it in ${baseUrl}/app/history before sending it again.`;
      throw inArgumentTerms(err, file, opts, request);
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
  const { baseUrl, key, timeoutMs } = settings(io);
  const api = { baseUrl, key: requireKey(key), timeoutMs };
  const body = await emailBody(file, opts);
  const bar = progress(io, opts.json);
  try {
    bar.step(`Checking ${path.basename(file)}`);
    /** @type {unknown} */
    let preview;
    try {
      withinRequestCap(file, opts, body);
      preview = await call(api, 'POST', '/api/email/preview', body);
    } catch (err) {
      throw inArgumentTerms(err, file, opts, body);
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
 * @param {{ text?: string, data?: string, parent?: string }} opts
 * @param {Record<string, any>} request the body that was sent
 */
function inArgumentTerms(err, file, opts, request) {
  if (!(err instanceof CliError)) return err;
  if (err.code === 'html_too_large') err.message = `${file}: ${err.message}`;
  else if (err.code === 'body_too_large') err.message = tooLarge(file, opts, request);
  else if (err.code === 'text_too_large' && opts.text) err.message = `${opts.text}: ${err.message}`;
  else if (err.code?.startsWith('template_data_') && opts.data) err.message = `${opts.data}: ${err.message}`;
  else if (opts.parent && err.code === 'not_found')
    err.message = `--parent ${opts.parent}: you have no email with this id (it may have been deleted). Use an id that proofmail send printed.`;
  else if (opts.parent && err.message.startsWith('parentId:'))
    err.message = `--parent ${opts.parent}: not an email id. Use an id that proofmail send printed (a UUID).`;
  return err;
}

/**
 * A request over the route's cap on the whole body (src/server/features/email/email.routes.ts) in
 * terms of the files it carries: those over their own cap, else all of them, together.
 * @param {string} file
 * @param {{ text?: string, data?: string }} opts
 * @param {Record<string, any>} request
 */
function tooLarge(file, opts, request) {
  const bytes = (/** @type {string} */ s) => Buffer.byteLength(s, 'utf8');
  const parts = [
    {
      name: file,
      size: bytes(request.html),
      max: MAX_SOURCE_BYTES,
      what: request.format === 'mjml' ? 'MJML' : 'HTML',
    },
  ];
  if (opts.text !== undefined)
    parts.push({ name: opts.text, size: bytes(request.text), max: MAX_SOURCE_BYTES, what: 'plain text' });
  if (opts.data !== undefined) {
    const size = bytes(JSON.stringify(request.template?.data ?? {}));
    parts.push({ name: opts.data, size, max: MAX_DATA_BYTES, what: 'sample data (as JSON)' });
  }
  const over = parts.filter((p) => p.size > p.max);
  if (over.length > 0) {
    return over
      .map((p) => `${p.name}: too large: the server takes at most ${sizeText(p.max)} of ${p.what}.`)
      .join(' ');
  }
  const names = parts.map((p) => `${p.name} (${sizeText(p.size)})`);
  const list = names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : names[0];
  return (
    `Too large as a whole: sending ${list} takes ${sizeText(bytes(JSON.stringify(request)))} of JSON, ` +
    `more than the server takes, although each file is within its own limit (in JSON, quotes, ` +
    `backslashes and line breaks take two characters). Make ${names.length > 1 ? 'them' : 'it'} smaller.`
  );
}

/**
 * A request over the route's cap is refused here, as the server would (the same message, exit 4):
 * the server answers such a body with a 413 before reading it and closes the connection, and a
 * client still writing it may see the connection close instead of the answer.
 * @param {string} file
 * @param {{ text?: string, data?: string }} opts
 * @param {Record<string, any>} request
 */
function withinRequestCap(file, opts, request) {
  if (Buffer.byteLength(JSON.stringify(request), 'utf8') > MAX_REQUEST_BYTES)
    throw new CliError(tooLarge(file, opts, request), EXIT.invalid, 'body_too_large');
}

/** 1 MB, 1.4 MB, 64 KB: sizes as the limits are written. */
function sizeText(/** @type {number} */ bytes) {
  if (bytes < 1024 * 1024) return `${Math.ceil(bytes / 1024)} KB`;
  return `${String(Math.round((bytes / (1024 * 1024)) * 10) / 10)} MB`;
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
5 API key, 6 limit reached, 7 unverified account, 8 server unreachable, 9 server error or no
answer (a send may then have gone out: look in the history before sending again).`,
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
    // Repeated, each --to adds to the list (commander would keep only the last), as the API takes it.
    .requiredOption(
      '--to <addresses>',
      'recipients, comma-separated or one --to each (at most 5)',
      (/** @type {string} */ value, /** @type {string | undefined} */ previous) =>
        previous === undefined ? value : `${previous},${value}`,
    )
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
