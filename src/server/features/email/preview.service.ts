import { Buffer } from 'node:buffer';
import type { FastifyReply } from 'fastify';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/database.ts';
import { enforceRateLimits, type RateRule } from '../../http/rate-limit.ts';
import { withLiveChecks, spamCheck } from '../../checks/live.ts';
import { loadTargetClients } from '../../checks/target-clients.ts';
import type { Egress } from '../../net/egress.ts';
import type { TransformPool } from '../../prepare/transform-pool.ts';
import type { PreviewEmailResponse } from '../../../shared/contract/email.ts';
import { checkEmailInput, prepareEmail, type EmailInput } from './email-input.ts';

function previewRule(config: Config): RateRule {
  return {
    name: 'email_preview',
    limit: config.previewsPerMinute,
    windowMs: 60_000,
    message: (wait) =>
      `Too many previews: at most ${config.previewsPerMinute} a minute. Try again in ${wait}.`,
  };
}

/**
 * What a send of this body would deliver, without sending (docs/architecture.md §9): the same
 * checks as a send (recipients only when given), then the same `prepare` on the transform pool. It
 * spends nothing, so it takes no send limit, but it is throttled per user since it costs a transform.
 * An unverified user may preview: nothing leaves the server.
 */
export async function previewEmail(
  deps: { db: Db; config: Config; clock: Clock; transforms: TransformPool; egress?: Egress },
  user: { id: string; email: string },
  input: EmailInput & { live?: boolean },
  reply: FastifyReply,
): Promise<PreviewEmailResponse> {
  const recipients = checkEmailInput(input, { requireTo: false });
  // Both before the transform; side by side, as they do not depend on each other.
  const [, targetClients] = await Promise.all([
    enforceRateLimits(
      deps.db,
      reply,
      [{ rule: previewRule(deps.config), subject: user.id }],
      deps.clock.now(),
    ),
    loadTargetClients(deps.db, user.id),
  ]);
  const prepared = await prepareEmail(
    deps,
    user.id,
    input,
    { to: recipients[0] ?? user.email, replyTo: user.email },
    { targetClients, rawMessage: deps.config.spamdUrl !== null, targets: input.live === true },
  );
  let checks = [
    ...(prepared.checks ?? []),
    await spamCheck(prepared.message ? Buffer.from(prepared.message) : null, deps.config.spamdUrl),
  ];
  if (input.live && prepared.targets)
    checks = await withLiveChecks(checks, prepared.targets, { egress: deps.egress, userId: user.id });
  return {
    html: prepared.html,
    text: prepared.text,
    subject: prepared.subject,
    bytes: prepared.bytes,
    notes: {
      inlined: prepared.notes.inlined,
      keptInStyle: prepared.notes.keptInStyle,
      // Only with merge tags: which of them the sample data left unfilled.
      ...(input.template ? { unfilled: prepared.notes.unfilled } : {}),
    },
    checks,
  };
}
