import type { Finding } from '../../shared/contract/checks.ts';
import type { Egress, EgressResponse } from '../net/egress.ts';
import {
  LIVE_CONCURRENCY,
  describeFailure,
  describeStatus,
  distinctHttpTargets,
  notCheckedFinding,
  place,
  probe,
  runBounded,
  shortUrl,
  type LiveTarget,
  type Outcome,
} from './live-fetch.ts';

/**
 * The live half of the `links` check (docs/architecture.md "Egress guard"): every distinct http(s)
 * link of the email as sent, through the egress guard, reported when broken or when it redirects.
 * A link the guard refuses to contact (a private or loopback address) is a warning that it cannot
 * be checked from here, not an error: it may work inside the author's network.
 */

/** A redirect chain this long (or longer) is a warning: each hop costs the reader a round trip. */
export const LONG_REDIRECT_CHAIN = 3;

function redirectFinding(link: LiveTarget, res: EgressResponse): Finding | undefined {
  if (res.redirects.length === 0) return undefined;
  const hops = res.redirects.length;
  const from = shortUrl(link.url);
  const to = shortUrl(res.url);
  const chain = hops === 1 ? 'once' : `${hops} times`;
  const insecure = [...res.redirects.slice(1).map((h) => h.url), res.url].some((u) => u.startsWith('http:'));
  if (insecure && link.url.startsWith('https:')) {
    return {
      severity: 'warning',
      message: `${from} redirects to an insecure http: address on its way to ${to}.`,
      hint: 'Link to the final https address directly, or fix the redirect on the server.',
      ...place(link),
    };
  }
  if (hops >= LONG_REDIRECT_CHAIN) {
    return {
      severity: 'warning',
      message: `${from} redirects ${chain} before it arrives at ${to}.`,
      hint: 'Link to the final address directly: every redirect slows the click down.',
      ...place(link),
    };
  }
  return {
    severity: 'info',
    message: `${from} redirects ${chain}, to ${to}.`,
    hint: 'Fine as it is; linking to the final address saves a round trip.',
    ...place(link),
  };
}

export async function checkLinksLive(
  links: { url: string; element?: string; line?: number }[],
  ctx: { egress: Egress; userId: string; signal?: AbortSignal },
): Promise<Finding[]> {
  const targets = distinctHttpTargets(links);
  const outcomes = await runBounded(targets, LIVE_CONCURRENCY, ctx.signal, async (link, stop) => {
    try {
      const res = await probe(ctx.egress, link.key, {
        userId: ctx.userId,
        signal: ctx.signal,
        connectTimeoutMs: 4_000,
        totalTimeoutMs: 8_000,
      });
      return { kind: 'ok' as const, res };
    } catch (err) {
      const outcome: Outcome = describeFailure(err, 'link', shortUrl(link.url));
      if (outcome.kind === 'not-checked') stop();
      return outcome;
    }
  });

  const findings: Finding[] = [];
  let notChecked = 0;
  let rateLimited = false;
  targets.forEach((link, i) => {
    const outcome = outcomes[i];
    if (!outcome || outcome.kind === 'not-checked') {
      notChecked++;
      rateLimited ||= outcome?.rateLimited ?? false;
      return;
    }
    if (outcome.kind === 'failed') {
      findings.push({ ...outcome.finding, ...place(link) });
      return;
    }
    const broken = describeStatus(outcome.res.status, 'link', shortUrl(link.url));
    if (broken) findings.push({ ...broken, ...place(link) });
    else {
      const redirect = redirectFinding(link, outcome.res);
      if (redirect) findings.push(redirect);
    }
  });
  findings.push(...notCheckedFinding(notChecked, rateLimited, 'links'));
  const checked = targets.length - notChecked;
  if (checked > 0 && !findings.some((f) => f.severity !== 'info')) {
    findings.unshift({
      severity: 'info',
      message: checked === 1 ? 'The link works.' : `All ${checked} links work.`,
      hint: 'Checked live just now.',
    });
  }
  return findings;
}
