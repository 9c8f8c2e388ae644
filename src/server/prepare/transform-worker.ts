import {
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
}

export type PrepareOutcome =
  | { ok: true; prepared: Prepared }
  | { ok: false; code: PrepareErrorCode; message: string; problems?: SourceProblem[] };

export type ToWorker = { id: number; task: PrepareTask };
export type FromWorker = { ready: true } | { id: number; outcome: PrepareOutcome };

export async function runTask(task: PrepareTask): Promise<PrepareOutcome> {
  try {
    const prepared = await prepare(task.input, { ...task.envelope, date: new Date(task.envelope.date) });
    return { ok: true, prepared };
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
    void runTask(message.task).then((outcome) => send({ id: message.id, outcome } satisfies FromWorker));
  });
  // The parent going away (even by SIGKILL) closes the channel: nothing is left to work for.
  process.on('disconnect', () => process.exit(0));
  send({ ready: true } satisfies FromWorker);
}
