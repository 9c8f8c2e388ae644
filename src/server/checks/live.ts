import type { Buffer } from 'node:buffer';
import type { Check, Finding } from '../../shared/contract/checks.ts';
import type { Egress } from '../net/egress.ts';
import { CHECK_TITLES, checkOf } from './check-input.ts';
import type { EmailImage } from './images.ts';
import type { EmailLink } from './links.ts';
import { checkImagesLive } from './live-images.ts';
import { checkLinksLive } from './live-links.ts';
import { checkSpam } from './spam.ts';

/**
 * The checks that need I/O, run in the server process beside the static ones
 * (docs/decisions/0063-pre-send-checklist.md): spam (SpamAssassin over spamc, when SPAMD_URL is
 * set) on every preview and send, and, on demand, the live link and image checks through the
 * egress guard (src/server/net/egress.ts). Each is bounded in time: a check that does not answer
 * in time is reported as skipped, and never holds up a send for longer.
 */

/** How long a send or a preview waits for SpamAssassin. */
export const SPAM_TIMEOUT_MS = 3_000;
/** How long the live checks of one preview may take, all links and images together. */
export const LIVE_TIMEOUT_MS = 20_000;

function skipped(id: 'spam' | 'links' | 'images', message: string): Check {
  return {
    id,
    title: CHECK_TITLES[id],
    status: 'skipped',
    findings: [{ severity: 'info', message, hint: 'Try again in a moment.' }],
  };
}

export async function spamCheck(
  rawMessage: Buffer | null,
  spamdUrl: string | null,
  timeoutMs = SPAM_TIMEOUT_MS,
): Promise<Check> {
  try {
    return await checkSpam(rawMessage ?? '', { spamdUrl, timeoutMs, signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const reason = err instanceof Error && err.name === 'TimeoutError' ? 'did not answer in time' : 'failed';
    return skipped('spam', `The spam check ${reason}; the email was not scored.`);
  }
}

/**
 * The static links and images checks with the live findings added (their status recomputed), or
 * the static ones unchanged with a note when the live check could not run.
 */
export async function withLiveChecks(
  checks: Check[],
  targets: { links: EmailLink[]; images: EmailImage[] },
  ctx: { egress: Egress | undefined; userId: string },
): Promise<Check[]> {
  const signal = AbortSignal.timeout(LIVE_TIMEOUT_MS);
  const add = (id: 'links' | 'images', extra: Finding[]) =>
    (checks = checks.map((c) => (c.id === id ? checkOf(id, [...c.findings, ...extra]) : c)));
  const note = (what: string): Finding => ({
    severity: 'info',
    message: `The live ${what} check could not run; only the static checks are shown.`,
    hint: 'Try again in a moment.',
  });
  if (!ctx.egress) {
    add('links', [note('link')]);
    add('images', [note('image')]);
    return checks;
  }
  const { egress, userId } = ctx;
  const [links, images] = await Promise.allSettled([
    checkLinksLive(targets.links, { egress, userId, signal }),
    checkImagesLive(targets.images, { egress, userId, signal }),
  ]);
  add('links', links.status === 'fulfilled' ? links.value : [note('link')]);
  add('images', images.status === 'fulfilled' ? images.value.findings : [note('image')]);
  return checks;
}
