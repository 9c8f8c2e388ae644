import { Buffer } from 'node:buffer';
import { parseHtml } from '../checks/html-doc.ts';
import { httpImages, type EmailImage } from '../checks/images.ts';
import { httpLinks, type EmailLink } from '../checks/links.ts';
import { runStaticChecks } from '../checks/static-checks.ts';
import { buildMessage } from '../mail/message.ts';
import { pixelDiff, type PixelDiffResult } from '../render/pixel-diff.ts';
import { loadMjml } from './mjml.ts';
import type { Check, TargetClientId } from '../../shared/contract/checks.ts';
import {
  placeholderMessageId,
  prepare,
  PrepareError,
  type Prepared,
  type PrepareErrorCode,
  type PrepareInput,
  type SourceProblem,
} from './prepare.ts';

/**
 * The entry of a transform process (transform-pool.ts). It says when it is ready, then answers each
 * job with a plain result instead of throwing, so the error's code survives the trip between
 * processes.
 */

export interface PrepareTask {
  input: PrepareInput;
  envelope: { from: string; to: string; replyTo: string | null; messageIdDomain: string; date: number };
  /** Run the static checks of the pre-send checklist on the prepared message, for these clients. */
  checks?: ChecksRequest;
}

export interface ChecksRequest {
  targetClients: TargetClientId[];
  /** Also answer the measured message itself (for the spam check, which reads it). */
  rawMessage?: boolean;
  /** Also answer the http(s) links and images (for the live checks). */
  targets?: boolean;
}

/** What a transform answers: the prepared message, and its static checks when they were asked for. */
export type PreparedWithChecks = Prepared & {
  checks?: Check[];
  message?: Uint8Array;
  targets?: { links: EmailLink[]; images: EmailImage[] };
};

export type PrepareOutcome =
  | { ok: true; prepared: PreparedWithChecks }
  | { ok: false; code: PrepareErrorCode; message: string; problems?: SourceProblem[] };

/** The row-aligned pixel diff of two renders (src/server/render/pixel-diff.ts), a second job kind. */
export interface PixelDiffTask {
  pixelDiff: { left: Uint8Array; right: Uint8Array };
}

export type PixelDiffOutcome =
  { ok: true; result: PixelDiffResult } | { ok: false; code: 'processing_failed'; message: string };

export type ToWorker = { id: number; task: PrepareTask } | { id: number; task: PixelDiffTask };
export type FromWorker =
  | { ready: true }
  /** The job's code is loaded (see loadFor): its time budget starts now. */
  | { id: number; loaded: true }
  | { id: number; outcome: PrepareOutcome }
  | { id: number; outcome: PixelDiffOutcome };

/**
 * Loads what a job needs and a process does not load at start: the MJML compiler (seconds on a
 * busy machine). Loading is not the email's doing, so it is not counted in the job's budget.
 */
async function loadFor(task: PrepareTask): Promise<void> {
  if (task.input.format === 'mjml') await loadMjml().catch(() => undefined); // compileMjml reports it
}

function runPixelDiff(task: PixelDiffTask): PixelDiffOutcome {
  try {
    return { ok: true, result: pixelDiff(task.pixelDiff.left, task.pixelDiff.right) };
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : String(err);
    return {
      ok: false,
      code: 'processing_failed',
      message: `The two renders could not be compared (${reason}).`,
    };
  }
}

export async function runTask(task: PrepareTask): Promise<PrepareOutcome> {
  try {
    const prepared = await prepare(task.input, { ...task.envelope, date: new Date(task.envelope.date) });
    if (!task.checks) return { ok: true, prepared };
    // Within the same job, so within the same time budget as prepare itself.
    const { envelope } = task;
    const message = task.checks.rawMessage
      ? await buildMessage({
          from: envelope.from,
          to: [envelope.to],
          replyTo: envelope.replyTo,
          subject: prepared.subject,
          html: prepared.html,
          text: prepared.text,
          messageId: placeholderMessageId(envelope.messageIdDomain),
          date: new Date(envelope.date),
        })
      : undefined;
    const doc = task.checks.targets ? parseHtml(prepared.html) : undefined;
    const checks = runStaticChecks(
      {
        html: prepared.html,
        text: prepared.text,
        subject: prepared.subject,
        bytes: prepared.bytes,
        headers: prepared.headers,
        notes: prepared.notes,
      },
      task.checks.targetClients,
    );
    return {
      ok: true,
      prepared: {
        ...prepared,
        checks,
        ...(message && { message: new Uint8Array(Buffer.from(message)) }),
        ...(doc && { targets: { links: httpLinks(doc), images: httpImages(doc) } }),
      },
    };
  } catch (err) {
    if (err instanceof PrepareError) {
      return {
        ok: false,
        code: err.code,
        message: err.message,
        ...(err.problems ? { problems: err.problems } : {}),
      };
    }
    const reason = err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : String(err);
    return {
      ok: false,
      code: 'processing_failed',
      message: `This email could not be processed (${reason}).`,
    };
  }
}

const send = process.send?.bind(process);
if (send) {
  process.on('message', (message: ToWorker) => {
    const { task } = message;
    if ('pixelDiff' in task) {
      send({ id: message.id, outcome: runPixelDiff(task) } satisfies FromWorker);
      return;
    }
    void (async () => {
      await loadFor(task);
      // Delivered before the job runs: a job that never yields would otherwise hold the message.
      await new Promise((sent) => send({ id: message.id, loaded: true } satisfies FromWorker, sent));
      const outcome = await runTask(task);
      send({ id: message.id, outcome } satisfies FromWorker);
    })();
  });
  // The parent going away (even by SIGKILL) closes the channel: nothing is left to work for.
  process.on('disconnect', () => process.exit(0));
  send({ ready: true } satisfies FromWorker);
}
