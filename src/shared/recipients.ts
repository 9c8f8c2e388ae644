import { MAX_RECIPIENTS } from './plans.ts';

/**
 * Recipients rule (docs/spec.md §5, docs/architecture.md §6): split on commas, trim, drop empties,
 * drop duplicates (case-insensitively), at most 5, and each a plain address — no display names,
 * quotes, groups, angle brackets, comments or line breaks; an internationalised domain is taken in
 * its ASCII form (asciiAddress). Shared so the form and the server agree.
 */

// Local part: dot-atoms of RFC 5322 atext; domain: LDH labels with a dot, or localhost.
const ATEXT = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+";
const LOCAL = `${ATEXT}(?:\\.${ATEXT})*`;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const PLAIN_ADDRESS = new RegExp(`^${LOCAL}@${LABEL}(?:\\.${LABEL})+$`);

export function isPlainAddress(address: string): boolean {
  return address.length <= 254 && (address.split('@')[0]?.length ?? 0) <= 64 && PLAIN_ADDRESS.test(address);
}

/** Characters a domain never has that a URL would read as something else (a port, a path, an escape). */
const NOT_IN_A_DOMAIN = /[\s@/\\:?#[\]%]/;

/**
 * An address with an internationalised domain as DNS and SMTP have it (`ann@bücher.example` →
 * `ann@xn--bcher-kva.example`, by the URL standard's IDNA, the same in the browser and on the
 * server); any other address as it is. The local part is left alone: one that is not ASCII needs
 * SMTPUTF8 of every server on the way, and stays refused.
 */
export function asciiAddress(address: string): string {
  const at = address.lastIndexOf('@');
  const domain = address.slice(at + 1);
  if (at === -1 || /^[\x20-\x7e]*$/.test(domain) || NOT_IN_A_DOMAIN.test(domain)) return address;
  try {
    return `${address.slice(0, at)}@${new URL(`http://${domain}/`).hostname}`;
  } catch {
    return address;
  }
}

/**
 * What a search for an internationalised recipient should also find: the ASCII form recipients are
 * stored in, of a whole address (`ann@bücher.example`), a domain or one of its labels (`bücher` →
 * `xn--bcher-kva`). Undefined when the search is ASCII already or has no such form.
 */
export function asciiSearchForm(q: string): string | undefined {
  if (/^[\x20-\x7e]*$/.test(q)) return undefined;
  const ascii = q.includes('@') ? asciiAddress(q) : asciiAddress(`x@${q}`).slice(2);
  return ascii !== q && /^[\x20-\x7e]+$/.test(ascii) ? ascii : undefined;
}

export type RecipientsResult =
  | { ok: true; recipients: string[] }
  | { ok: false; reason: 'missing' | 'too_many' | 'invalid'; invalid?: string };

export function parseRecipients(input: string, max = MAX_RECIPIENTS): RecipientsResult {
  const seen = new Set<string>();
  const recipients: string[] = [];
  for (const raw of input.split(',')) {
    const written = raw.trim();
    if (!written) continue;
    const address = asciiAddress(written);
    if (!isPlainAddress(address)) return { ok: false, reason: 'invalid', invalid: written };
    const key = address.toLowerCase();
    if (seen.has(key)) continue;
    seen.add(key);
    recipients.push(address);
  }
  if (recipients.length === 0) return { ok: false, reason: 'missing' };
  if (recipients.length > max) return { ok: false, reason: 'too_many' };
  return { ok: true, recipients };
}
