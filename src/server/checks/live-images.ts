import type { Finding } from '../../shared/contract/checks.ts';
import type { Egress } from '../net/egress.ts';
import {
  LIVE_CONCURRENCY,
  describeFailure,
  describeStatus,
  distinctHttpTargets,
  notCheckedFinding,
  place,
  runBounded,
  shortUrl,
  type Outcome,
} from './live-fetch.ts';

/**
 * The live half of the `images` check: every distinct http(s) image of the email as sent, fetched
 * through the egress guard, reported when broken and weighed (Content-Length when the server gives
 * it, else the bytes counted up to just over the error threshold, then the connection is cut).
 */

const KB = 1024;
/** One image over this is a warning. */
export const IMAGE_WARN_BYTES = 200 * KB;
/** One image over this is an error (we never read more than this, plus one chunk). */
export const IMAGE_ERROR_BYTES = 1024 * KB;
/** All images together over this is a warning (docs/decisions/0061-live-link-and-image-checks.md). */
export const TOTAL_WARN_BYTES = 1024 * KB;

export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * KB) return `${(bytes / (1024 * KB)).toFixed(1)} MB`;
  if (bytes >= KB) return `${Math.round(bytes / KB)} KB`;
  return `${bytes} bytes`;
}

interface Weighed {
  kind: 'ok';
  bytes: number;
  /** True when reading stopped at the cap: the image weighs at least `bytes`. */
  atLeast: boolean;
  contentType: string | undefined;
  /** When the answer's type is not an image's: the image format its first bytes are, if any. */
  sniffed?: ImageFormat;
}

interface ImageFormat {
  name: string;
  type: string;
}

/** Bytes a file starts with, per image format (at `at`, when not at the start). */
const SIGNATURES: { name: string; type: string; bytes: string; at?: number }[] = [
  { name: 'PNG', type: 'image/png', bytes: '\x89PNG\r\n\x1a\n' },
  { name: 'JPEG', type: 'image/jpeg', bytes: '\xff\xd8\xff' },
  { name: 'GIF', type: 'image/gif', bytes: 'GIF8' },
  { name: 'WebP', type: 'image/webp', bytes: 'WEBP', at: 8 },
  { name: 'AVIF', type: 'image/avif', bytes: 'ftypavif', at: 4 },
  { name: 'BMP', type: 'image/bmp', bytes: 'BM' },
];
/** Enough of a file to tell its format. */
const SNIFF_BYTES = 16;

/** The image format the first bytes of a file say, the way browsers (and so webmail) tell one. */
export function sniffImage(head: Buffer): ImageFormat | undefined {
  const found = SIGNATURES.find(
    (s) => head.subarray(s.at ?? 0, (s.at ?? 0) + s.bytes.length).toString('latin1') === s.bytes,
  );
  return found && { name: found.name, type: found.type };
}

/** A type an answer gives that is not an image's (no type at all is not counted against it). */
const notImage = (contentType: string | undefined): contentType is string =>
  !!contentType && !contentType.startsWith('image/');

async function weigh(
  egress: Egress,
  url: string,
  ctx: { userId: string; signal?: AbortSignal },
): Promise<Weighed | { kind: 'status'; status: number }> {
  const common = { userId: ctx.userId, signal: ctx.signal, connectTimeoutMs: 4_000 };
  const head = await egress.fetch(url, { ...common, method: 'HEAD', body: 'discard', totalTimeoutMs: 8_000 });
  const type = (h: string | string[] | undefined) =>
    typeof h === 'string' ? h.split(';')[0]!.trim() : undefined;
  if (head.status < 400 && head.contentLength !== undefined) {
    const contentType = type(head.headers['content-type']);
    // An answer that says it is no image: its first bytes say whether it is one all the same.
    const first = notImage(contentType)
      ? await egress.fetch(url, {
          ...common,
          method: 'GET',
          maxBytes: SNIFF_BYTES,
          overflow: 'truncate',
          totalTimeoutMs: 8_000,
        })
      : undefined;
    return {
      kind: 'ok',
      bytes: head.contentLength,
      atLeast: false,
      contentType,
      sniffed: first && first.status < 400 ? sniffImage(first.body) : undefined,
    };
  }
  const get = await egress.fetch(url, {
    ...common,
    method: 'GET',
    maxBytes: IMAGE_ERROR_BYTES,
    overflow: 'truncate',
    totalTimeoutMs: 15_000,
  });
  if (get.status >= 400) return { kind: 'status', status: get.status };
  const contentType = type(get.headers['content-type']);
  return {
    kind: 'ok',
    bytes: get.truncated ? get.bytesRead : get.body.length,
    atLeast: get.truncated,
    contentType,
    sniffed: notImage(contentType) ? sniffImage(get.body) : undefined,
  };
}

export async function checkImagesLive(
  images: { src: string; element?: string; line?: number }[],
  ctx: { egress: Egress; userId: string; signal?: AbortSignal },
): Promise<{ findings: Finding[]; totalBytes: number }> {
  const targets = distinctHttpTargets(images.map((i) => ({ url: i.src, element: i.element, line: i.line })));
  const outcomes = await runBounded(targets, LIVE_CONCURRENCY, ctx.signal, async (image, stop) => {
    try {
      return await weigh(ctx.egress, image.key, ctx);
    } catch (err) {
      const outcome: Outcome = describeFailure(err, 'image', shortUrl(image.url));
      if (outcome.kind === 'not-checked') stop();
      return outcome;
    }
  });

  const findings: Finding[] = [];
  let totalBytes = 0;
  let weighed = 0;
  let totalAtLeast = false;
  let notChecked = 0;
  let rateLimited = false;
  targets.forEach((image, i) => {
    const outcome = outcomes[i];
    const url = shortUrl(image.url);
    if (!outcome || outcome.kind === 'not-checked') {
      notChecked++;
      rateLimited ||= outcome?.rateLimited ?? false;
      return;
    }
    if (outcome.kind === 'failed') return void findings.push({ ...outcome.finding, ...place(image) });
    if (outcome.kind === 'status') {
      return void findings.push({ ...describeStatus(outcome.status, 'image', url)!, ...place(image) });
    }
    weighed++;
    // An image whose counting stopped past the limit counts as the limit: the total is then "more
    // than" a figure that does not depend on the size of the chunk that crossed it.
    totalBytes += outcome.atLeast ? IMAGE_ERROR_BYTES : outcome.bytes;
    totalAtLeast ||= outcome.atLeast;
    if (outcome.sniffed) {
      // A real image under a generic type (S3's binary/octet-stream): browsers, and so webmail and
      // Apple Mail, tell an image by its bytes and show it.
      findings.push({
        severity: 'info',
        message: `${url} is a ${outcome.sniffed.name} image served as ${outcome.contentType}.`,
        hint: `Clients tell an image by its bytes and show it; serving it as ${outcome.sniffed.type} is the tidy setting.`,
        ...place(image),
      });
    } else if (notImage(outcome.contentType)) {
      findings.push({
        severity: 'warning',
        message: `${url} answers ${outcome.contentType}, not an image.`,
        hint: 'Check the address: clients show a broken image for anything that is not one.',
        ...place(image),
      });
    }
    // Counting stops past the limit after a chunk of any size: what is known is "more than the limit".
    const weight = outcome.atLeast
      ? `more than ${formatBytes(IMAGE_ERROR_BYTES)}`
      : formatBytes(outcome.bytes);
    if (outcome.atLeast || outcome.bytes > IMAGE_ERROR_BYTES) {
      findings.push({
        severity: 'error',
        message: `${url} weighs ${weight}, over the ${formatBytes(IMAGE_ERROR_BYTES)} limit for one image.`,
        hint: 'Resize it to the size it is shown at and compress it: it loads slowly on mobile data.',
        ...place(image),
      });
    } else if (outcome.bytes > IMAGE_WARN_BYTES) {
      findings.push({
        severity: 'warning',
        message: `${url} weighs ${weight}, over ${formatBytes(IMAGE_WARN_BYTES)}.`,
        hint: 'Resize it to the size it is shown at and compress it.',
        ...place(image),
      });
    }
  });
  findings.push(...notCheckedFinding(notChecked, rateLimited, 'images'));
  if (weighed > 0) {
    const total = `${totalAtLeast ? 'more than ' : ''}${formatBytes(totalBytes)}`;
    const count = weighed === 1 ? '1 image' : `${weighed} images`;
    findings.push(
      totalBytes > TOTAL_WARN_BYTES
        ? {
            severity: 'warning',
            message: `The images weigh ${total} in total (${count}), over ${formatBytes(TOTAL_WARN_BYTES)}.`,
            hint: 'Readers on mobile data wait for every byte: compress the largest images first.',
          }
        : {
            severity: 'info',
            message: `The images weigh ${total} in total (${count}).`,
            hint: `Fine: under ${formatBytes(TOTAL_WARN_BYTES)} in total.`,
          },
    );
  }
  return { findings, totalBytes };
}
