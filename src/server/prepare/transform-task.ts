import { httpImages, type EmailImage } from '../checks/images.ts';
import { httpLinks, type EmailLink } from '../checks/links.ts';
import { searchWords } from '../db/search-words.ts';
import { checkHtml, finishChecks } from '../checks/static-checks.ts';
import { pixelDiff, type PixelDiffResult } from '../render/pixel-diff.ts';
import { loadMjml } from './mjml.ts';
import type { WireEnvelope } from './measure-message.ts';
import { failureReason } from './prepare-error.ts';
import type { Check, TargetClientId } from '../../shared/contract/checks.ts';
import { BESIDE_FROM_CHARS, type MeasureBeside } from './measure-beside.ts';
import {
  assemble,
  measureMessage,
  prepareHtml,
  PrepareError,
  type Prepared,
  type PrepareErrorCode,
  type PrepareInput,
  type SourceProblem,
} from './prepare.ts';

/**
 * What a transform process (transform-worker.ts) does with a job, and the messages it exchanges
 * with the pool (transform-pool.ts). Each job gets a plain result instead of an exception, so the
 * error's code survives the trip between processes. Apart from the entry, so that tests run a job
 * in line without starting a process's wiring.
 */

export interface PrepareTask {
  input: PrepareInput;
  envelope: WireEnvelope;
  /** Run the static checks of the pre-send checklist on the prepared message, for these clients. */
  checks?: ChecksRequest;
}

export interface ChecksRequest {
  targetClients: TargetClientId[];
  /** Also answer the measured message itself (for the spam check, which reads it). */
  rawMessage?: boolean;
  /** Also answer the http(s) links and images (for the live checks). */
  targets?: boolean;
  /** Also answer the words of the HTML as sent, which a send stores for history search's index. */
  searchWords?: boolean;
}

/** What a transform answers: the prepared message, and its static checks when they were asked for. */
export type PreparedWithChecks = Prepared & {
  checks?: Check[];
  message?: Uint8Array;
  targets?: { links: EmailLink[]; images: EmailImage[] };
  searchWords?: string;
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
  /** The job's code is loaded (see loadFor; only jobs that need loading say it): its budget starts now. */
  | { id: number; loaded: true }
  | { id: number; outcome: PrepareOutcome }
  | { id: number; outcome: PixelDiffOutcome };

/**
 * Loads what a job that `needsLoading` (job-loading.ts) needs and a process does not load at start:
 * the MJML compiler (seconds on a busy machine). Loading is not the email's doing, so it is not
 * counted in the job's budget.
 */
export async function loadFor(): Promise<void> {
  await loadMjml().catch(() => undefined); // compileMjml reports it
}

export function runPixelDiff(task: PixelDiffTask): PixelDiffOutcome {
  try {
    return { ok: true, result: pixelDiff(task.pixelDiff.left, task.pixelDiff.right) };
  } catch (err) {
    const reason = failureReason(err);
    return {
      ok: false,
      code: 'processing_failed',
      message: `The two renders could not be compared (${reason}).`,
    };
  }
}

export async function runTask(task: PrepareTask, beside?: MeasureBeside): Promise<PrepareOutcome> {
  try {
    const envelope = { ...task.envelope, date: new Date(task.envelope.date) };
    // A large job generates its text part on the thread while the CSS is inlined here, and builds
    // its message there while its HTML is checked here (measure-beside.ts). A thread that stopped
    // (out of its smaller heap, say) costs the job its head start, not its answer.
    const large = (html: string) => html.length >= BESIDE_FROM_CHARS;
    const part = await prepareHtml(task.input, (html) => (large(html) ? beside?.text(html) : undefined));
    if (!task.checks) return { ok: true, prepared: assemble(part, await measureMessage(part, envelope)) };
    // Within the same job, so within the same time budget as prepare itself.
    const onThread = (large(part.html) ? beside?.measure(part, envelope) : undefined)?.catch(() =>
      measureMessage(part, envelope),
    );
    const checked = checkHtml(part.html, task.checks.targetClients);
    const measured = await (onThread ?? measureMessage(part, envelope));
    const prepared = assemble(part, measured);
    const checks = finishChecks(checked, {
      html: prepared.html,
      text: prepared.text,
      subject: prepared.subject,
      bytes: prepared.bytes,
      headers: prepared.headers,
      notes: prepared.notes,
    });
    return {
      ok: true,
      prepared: {
        ...prepared,
        checks,
        // The measured message is the message: the spam check reads these bytes.
        ...(task.checks.rawMessage && { message: new Uint8Array(measured.message) }),
        ...(task.checks.targets && {
          targets: { links: httpLinks(checked.doc), images: httpImages(checked.doc) },
        }),
        ...(task.checks.searchWords && { searchWords: searchWords(prepared.html) }),
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
    const reason = failureReason(err);
    return {
      ok: false,
      code: 'processing_failed',
      message: `This email could not be processed (${reason}).`,
    };
  }
}
