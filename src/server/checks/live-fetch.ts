import type { Finding } from '../../shared/contract/checks.ts';
import { EgressError, type Egress, type EgressRequest, type EgressResponse } from '../net/egress.ts';
import { addressPhrase } from '../net/classify-address.ts';

/**
 * What the live link and image checks share (src/server/checks/live-links.ts, live-images.ts):
 * the distinct http(s) targets of an email, a bounded pool that stops when the caller gives up,
 * one probe (HEAD, then GET when HEAD is refused), and the guard's failures in plain words.
 */

export interface LiveTarget {
  url: string;
  element?: string;
  line?: number;
}

/** Requests one check keeps in flight (the guard caps a user at 8, docs/decisions/0060-egress-guard.md). */
export const LIVE_CONCURRENCY = 6;

/** The http(s) targets, each once (the fragment never reaches the server), in order of appearance. */
export function distinctHttpTargets(targets: readonly LiveTarget[]): (LiveTarget & { key: string })[] {
  const seen = new Map<string, LiveTarget & { key: string }>();
  for (const t of targets) {
    let url: URL;
    try {
      url = new URL(t.url.trim());
    } catch {
      continue;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') continue;
    url.hash = '';
    if (!seen.has(url.href)) seen.set(url.href, { ...t, key: url.href });
  }
  return [...seen.values()];
}

/** A URL short enough for a sentence. */
export function shortUrl(url: string): string {
  return url.length > 90 ? `${url.slice(0, 87)}…` : url;
}

/** Where a finding points: the element and line of the target, when known. */
export function place(t: LiveTarget): Pick<Finding, 'element' | 'line'> {
  return {
    ...(t.element !== undefined ? { element: t.element } : {}),
    ...(t.line !== undefined ? { line: t.line } : {}),
  };
}

/**
 * Runs `work` on every item with at most `limit` at once. Items not started when `signal` aborts or
 * `stop()` was called are left undefined.
 */
export async function runBounded<T, R>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal | undefined,
  work: (item: T, stop: () => void) => Promise<R>,
): Promise<(R | undefined)[]> {
  const results: (R | undefined)[] = new Array<R | undefined>(items.length).fill(undefined);
  let next = 0;
  let stopped = false;
  const stop = () => {
    stopped = true;
  };
  const worker = async () => {
    while (!stopped && !signal?.aborted && next < items.length) {
      const i = next++;
      results[i] = await work(items[i]!, stop);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** Servers that refuse HEAD (or answer it wrongly) are asked again with GET, body not read. */
export async function probe(
  egress: Egress,
  url: string,
  request: Omit<EgressRequest, 'method' | 'body'>,
): Promise<EgressResponse> {
  const head = await egress.fetch(url, { ...request, method: 'HEAD', body: 'discard' });
  if (head.status < 400) return head;
  return egress.fetch(url, { ...request, method: 'GET', body: 'discard' });
}

export type Outcome =
  | { kind: 'failed'; finding: Pick<Finding, 'severity' | 'message' | 'hint'> }
  /** Not checked: the caller's time ran out, or the user's rate was used up. */
  | { kind: 'not-checked'; rateLimited: boolean };

/** Answers that say who is asking is refused, not that the page is missing. */
const REFUSALS: Record<number, string> = {
  401: 'access denied',
  403: 'access denied',
  429: 'too many requests',
  999: 'request denied',
};

/** An HTTP status that means the target is broken, in words; undefined when it is fine. */
export function describeStatus(
  status: number,
  what: 'link' | 'image',
  url: string,
): Pick<Finding, 'severity' | 'message' | 'hint'> | undefined {
  if (status < 400) return undefined;
  const fix =
    what === 'link'
      ? 'Fix the address or remove the link.'
      : 'Fix the image address or upload the image again.';
  // 999 is LinkedIn's answer to every automated request ("Request denied"), a working page or not.
  const refusal = REFUSALS[status];
  if (refusal) {
    return {
      severity: 'warning',
      message: `${url} answers ${status} (${refusal}) to our check.`,
      hint: `It may need a sign-in, or block automated checks; open it in a browser to be sure. ${fix}`,
    };
  }
  const words =
    status === 404 ? ' (not found)' : status === 410 ? ' (gone)' : status >= 500 ? ' (server error)' : '';
  return {
    severity: 'error',
    message: `${what === 'link' ? 'Broken link' : 'Broken image'}: ${url} answers ${status}${words}.`,
    hint: fix,
  };
}

/** A failure of the guard in words, for a link or an image. */
export function describeFailure(err: unknown, what: 'link' | 'image', url: string): Outcome {
  if (!(err instanceof EgressError)) {
    return {
      kind: 'failed',
      finding: {
        severity: 'warning',
        message: `${url} could not be checked.`,
        hint: 'Try the live check again.',
      },
    };
  }
  const noun = what === 'link' ? 'link' : 'image';
  const fail = (severity: Finding['severity'], message: string, hint: string): Outcome => ({
    kind: 'failed',
    finding: { severity, message, hint },
  });
  switch (err.kind) {
    case 'aborted':
      return { kind: 'not-checked', rateLimited: false };
    case 'rate-limited':
      return { kind: 'not-checked', rateLimited: true };
    case 'refused-address':
      return fail(
        'warning',
        `This ${noun} cannot be checked from here: ${url} points to ${addressPhrase(err.detail.addressClass ?? 'non-public')}.`,
        'Recipients outside your network cannot reach it either: use a public address.',
      );
    case 'refused-port':
    case 'refused-credentials':
    case 'refused-scheme':
    case 'invalid-url':
      return fail(
        'warning',
        `This ${noun} cannot be checked from here: ${err.message}`,
        'Use a plain https address.',
      );
    case 'dns':
      return err.detail.code === 'ENOTFOUND'
        ? fail(
            'error',
            `${what === 'link' ? 'Broken link' : 'Broken image'}: ${err.message}`,
            'Check the spelling of the domain.',
          )
        : fail(
            'warning',
            `${url} could not be checked: ${err.message}`,
            'Try the live check again in a moment.',
          );
    case 'timeout':
      return fail(
        'warning',
        `${url} did not answer in time.`,
        'A slow server loses readers: check that it is up.',
      );
    case 'connection-refused':
      return fail(
        'error',
        `${what === 'link' ? 'Broken link' : 'Broken image'}: ${url} refuses connections.`,
        'Check that the server is up.',
      );
    case 'tls':
      return fail(
        'error',
        `${url} has a certificate problem: ${err.message}`,
        'Recipients will see a security warning: fix the certificate or use another address.',
      );
    case 'too-many-redirects':
      return fail('error', `${url} redirects more than 5 times.`, 'Link to the final address directly.');
    case 'too-large':
      return fail(
        'warning',
        `${url} answers more than we read: ${err.message}`,
        'Check what the address serves.',
      );
    case 'connection':
      return fail(
        'warning',
        `${url} could not be reached: ${err.message}`,
        'Try the live check again in a moment.',
      );
  }
}

/** The one finding for the targets that were not checked, if any. */
export function notCheckedFinding(count: number, rateLimited: boolean, what: 'links' | 'images'): Finding[] {
  if (count === 0) return [];
  return [
    {
      severity: 'info',
      message: rateLimited
        ? `${count} ${what} were not checked: too many outside requests in the last minute.`
        : `${count} ${what} were not checked in time.`,
      hint: 'Run the live check again to check the rest.',
    },
  ];
}
