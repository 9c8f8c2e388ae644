// PLACEHOLDER — not merged yet. The spam check is built on another branch (w2-egress); this file
// only gives src/server/checks/live.ts the signature until the lead merges that branch.
import type { Check } from '../../shared/contract/checks.ts';

export function checkSpam(
  _rawMessage: Buffer | string,
  ctx: { spamdUrl: string | null; signal?: AbortSignal },
): Promise<Check> {
  if (ctx.spamdUrl === null)
    return Promise.resolve({
      id: 'spam',
      title: 'Spam Score',
      status: 'skipped',
      findings: [
        {
          severity: 'info',
          message: 'No spam filter is configured on this server (SPAMD_URL).',
          hint: 'An operator can connect SpamAssassin to score messages.',
        },
      ],
    });
  return Promise.reject(new Error('not merged yet'));
}
