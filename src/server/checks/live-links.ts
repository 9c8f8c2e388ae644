// PLACEHOLDER — not merged yet. The live link check is built on another branch (w2-egress); this
// file only gives src/server/checks/live.ts the signature until the lead merges that branch.
import type { Finding } from '../../shared/contract/checks.ts';
import type { Egress } from '../net/egress.ts';

export function checkLinksLive(
  _links: { url: string; element?: string; line?: number }[],
  _ctx: { egress: Egress; userId: string; signal?: AbortSignal },
): Promise<Finding[]> {
  return Promise.reject(new Error('not merged yet'));
}
