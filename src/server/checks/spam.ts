import net from 'node:net';
import { statusOf, type Check, type Finding } from '../../shared/contract/checks.ts';

/**
 * The checklist's `spam` check (docs/decisions/0062-spam-check-spamd.md): the message as it leaves,
 * scored by the operator's SpamAssassin over the spamc protocol (REPORT, SPAMC/1.5). spamd's address
 * is operator configuration (SPAMD_URL), never user input, so it does not go through the egress
 * guard. Without SPAMD_URL, or when spamd cannot answer in time, the check is skipped with one line
 * saying why; it never throws.
 */

const TITLE = 'Spam Score';
const DEFAULT_TIMEOUT_MS = 10_000;
/** A REPORT answer is a few KB; anything far larger is not spamd. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface SpamRule {
  name: string;
  points: number;
  description: string;
}

export interface SpamReport {
  isSpam: boolean;
  score: number;
  threshold: number;
  rules: SpamRule[];
}

/** What to do about the rules an email author trips most often; other rules get a generic hint. */
const RULE_HINTS: Record<string, string> = {
  MIME_HTML_ONLY: 'Add a plain-text part: messages with HTML only look like bulk mail.',
  HTML_IMAGE_ONLY_04: 'Add real text: an email that is mostly images looks like spam.',
  HTML_IMAGE_ONLY_08: 'Add real text: an email that is mostly images looks like spam.',
  HTML_IMAGE_ONLY_12: 'Add real text: an email that is mostly images looks like spam.',
  HTML_IMAGE_ONLY_16: 'Add real text: an email that is mostly images looks like spam.',
  HTML_IMAGE_ONLY_20: 'Add real text: an email that is mostly images looks like spam.',
  HTML_IMAGE_ONLY_24: 'Add real text: an email that is mostly images looks like spam.',
  HTML_IMAGE_ONLY_28: 'Add real text: an email that is mostly images looks like spam.',
  HTML_IMAGE_RATIO_02: 'Add more text around the images.',
  HTML_IMAGE_RATIO_04: 'Add more text around the images.',
  HTML_IMAGE_RATIO_06: 'Add more text around the images.',
  HTML_IMAGE_RATIO_08: 'Add more text around the images.',
  HTML_SHORT_LINK_IMG_1: 'Add text beside the linked image.',
  HTML_SHORT_LINK_IMG_2: 'Add text beside the linked image.',
  HTML_SHORT_LINK_IMG_3: 'Add text beside the linked image.',
  MPART_ALT_DIFF: 'Make the plain-text part say what the HTML part says.',
  MPART_ALT_DIFF_COUNT: 'Make the plain-text part say what the HTML part says.',
  HTML_FONT_LOW_CONTRAST: 'Use text colours that stand out from the background.',
  HTML_TINY_FONT: 'Do not hide text in tiny fonts.',
  EMPTY_MESSAGE: 'Write a message body.',
  MISSING_SUBJECT: 'Add a subject.',
  SUBJ_ALL_CAPS: 'Write the subject in normal case.',
  GTUBE: 'The message contains the GTUBE test string, which every SpamAssassin flags on purpose.',
};

function check(status: Check['status'], findings: Finding[]): Check {
  return { id: 'spam', title: TITLE, status, findings };
}

function skipped(message: string, hint: string): Check {
  return check('skipped', [{ severity: 'info', message, hint }]);
}

/** The number as SpamAssassin prints it: one decimal. */
const fmt = (n: number) => n.toFixed(1);

/**
 * Parses a spamd answer to REPORT (or SYMBOLS, which has no descriptions): the status line, the
 * `Spam: True ; 6.2 / 5.0` header, and the rules of the report's table (or the symbols line).
 * Returns a sentence when the answer is not a usable one.
 */
export function parseSpamdResponse(raw: string): SpamReport | { error: string } {
  const headerEnd = raw.search(/\r?\n\r?\n/);
  const head = headerEnd === -1 ? raw : raw.slice(0, headerEnd);
  const body = headerEnd === -1 ? '' : raw.slice(headerEnd).replace(/^\r?\n\r?\n/, '');
  const [statusLine = '', ...headerLines] = head.split(/\r?\n/);
  const status = /^SPAMD\/\d+\.\d+\s+(\d+)\s*(.*)$/.exec(statusLine.trim());
  if (!status) return { error: 'SpamAssassin gave an answer that is not the spamd protocol.' };
  if (status[1] !== '0') return { error: `SpamAssassin answered with an error (${status[1]} ${status[2]}).` };
  const spamHeader = headerLines.find((l) => /^spam\s*:/i.test(l));
  const verdict =
    spamHeader && /:\s*(true|false|yes|no)\s*;\s*(-?[\d.]+)\s*\/\s*(-?[\d.]+)/i.exec(spamHeader);
  if (!verdict) return { error: 'SpamAssassin did not give a score.' };
  const isSpam = /^(true|yes)$/i.test(verdict[1]!);
  const score = Number(verdict[2]);
  const threshold = Number(verdict[3]);

  const rules: SpamRule[] = [];
  const lines = body.split(/\r?\n/);
  const tableStart = lines.findIndex((l) => /^\s*-{3,}\s+-{3,}\s+-{3,}/.test(l));
  if (tableStart >= 0) {
    for (const line of lines.slice(tableStart + 1)) {
      const row = /^\s*(-?\d+(?:\.\d+)?)\s+([A-Z0-9_]+)\s+(.*)$/.exec(line);
      if (row) {
        rules.push({ points: Number(row[1]), name: row[2]!, description: row[3]!.trim() });
      } else if (/^\s{2,}\S/.test(line) && rules.length > 0) {
        // A description that wrapped onto the next line.
        const last = rules[rules.length - 1]!;
        last.description = `${last.description} ${line.trim()}`;
      } else if (line.trim() === '') {
        if (rules.length > 0) break;
      }
    }
  } else {
    // SYMBOLS: one line of comma-separated rule names, no points.
    const symbols = body.trim();
    if (/^[A-Z0-9_]+(,[A-Z0-9_]+)*$/.test(symbols)) {
      for (const name of symbols.split(',')) rules.push({ name, points: 0, description: '' });
    }
  }
  return { isSpam, score, threshold, rules };
}

/** The findings for a report: one verdict (error / warning / info) and one per rule that adds points. */
export function spamFindings(report: SpamReport): Finding[] {
  const { score, threshold } = report;
  const verdict: Finding = report.isSpam
    ? {
        severity: 'error',
        message: `SpamAssassin would mark this email as spam: it scores ${fmt(score)}, and ${fmt(threshold)} is spam.`,
        hint: 'Fix the rules below, the ones with the most points first, until the score is well under the threshold.',
      }
    : score > threshold / 2
      ? {
          severity: 'warning',
          message: `SpamAssassin scores this email ${fmt(score)}, more than half of the spam threshold (${fmt(threshold)}).`,
          hint: 'Other filters are stricter: fix the rules below with the most points first.',
        }
      : {
          severity: 'info',
          message: `SpamAssassin scores this email ${fmt(score)}; ${fmt(threshold)} is spam.`,
          hint: 'Nothing to do: the score is well under the threshold.',
        };
  const rules = report.rules
    .filter((r) => r.points > 0)
    .sort((a, b) => b.points - a.points)
    .map((r): Finding => ({
      severity: 'info',
      message: `${r.name} (+${fmt(r.points)})${r.description ? `: ${r.description}` : ''}`,
      hint:
        RULE_HINTS[r.name] ?? 'SpamAssassin adds these points; change what the rule describes to lose them.',
    }));
  return [verdict, ...rules];
}

function target(spamdUrl: string): { host: string; port: number } {
  const url = new URL(spamdUrl);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 783) };
}

/** One REPORT exchange with spamd: resolves with the whole answer, rejects with a sentence. */
function askSpamd(
  spamdUrl: string,
  message: Buffer,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<string> {
  const { host, port } = target(spamdUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const socket = net.connect({ host, port });
    const finish = (err: Error | null, text?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
      if (err) reject(err);
      else resolve(text ?? '');
    };
    const timer = setTimeout(() => finish(new Error('SpamAssassin did not answer in time.')), timeoutMs);
    const onAbort = () => finish(new Error('SpamAssassin did not answer in time.'));
    if (signal?.aborted) return onAbort();
    signal?.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => {
      socket.write(`REPORT SPAMC/1.5\r\nContent-length: ${message.length}\r\n\r\n`);
      socket.end(message);
    });
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES) return finish(new Error('SpamAssassin gave an answer far too large.'));
      chunks.push(chunk);
    });
    socket.once('end', () => finish(null, Buffer.concat(chunks).toString('utf8')));
    socket.once('error', (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'ECONNREFUSED'
          ? 'connection refused'
          : err.code === 'ENOTFOUND'
            ? `no host named ${host}`
            : (err.code ?? err.message);
      finish(new Error(`SpamAssassin could not be reached (${why}).`));
    });
  });
}

export async function checkSpam(
  rawMessage: Buffer | string,
  ctx: { spamdUrl: string | null; signal?: AbortSignal; timeoutMs?: number },
): Promise<Check> {
  if (!ctx.spamdUrl) {
    return skipped(
      'SpamAssassin is not configured on this server (set SPAMD_URL).',
      'An operator can connect SpamAssassin (spamd) to score every message before it is sent.',
    );
  }
  const message = Buffer.isBuffer(rawMessage) ? rawMessage : Buffer.from(rawMessage, 'utf8');
  let answer: string;
  try {
    answer = await askSpamd(ctx.spamdUrl, message, ctx.timeoutMs ?? DEFAULT_TIMEOUT_MS, ctx.signal);
  } catch (err) {
    return skipped(
      `${(err as Error).message} The email was not scored.`,
      'Try again in a moment; if it keeps happening, the operator should check spamd at SPAMD_URL.',
    );
  }
  const report = parseSpamdResponse(answer);
  if ('error' in report) {
    return skipped(
      `${report.error} The email was not scored.`,
      'The operator should check spamd at SPAMD_URL.',
    );
  }
  const findings = spamFindings(report);
  return check(statusOf(findings), findings);
}
