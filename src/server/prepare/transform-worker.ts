import { prepare, PrepareError, type Prepared, type PrepareErrorCode, type PrepareInput } from './prepare.ts';

/**
 * The entry of a transform-pool thread (transform-pool.ts). It answers with a plain result instead
 * of throwing, so the error's code survives the trip between threads.
 */

export interface PrepareTask {
  input: PrepareInput;
  envelope: { from: string; to: string; replyTo: string | null; messageIdDomain: string; date: number };
  /** One Float64: the worker writes Date.now() here when it starts, so the budget counts work, not queueing. */
  started: SharedArrayBuffer;
}

export type PrepareOutcome =
  { ok: true; prepared: Prepared } | { ok: false; code: PrepareErrorCode; message: string };

export default async function run(task: PrepareTask): Promise<PrepareOutcome> {
  new Float64Array(task.started)[0] = Date.now();
  try {
    const prepared = await prepare(task.input, { ...task.envelope, date: new Date(task.envelope.date) });
    return { ok: true, prepared };
  } catch (err) {
    if (err instanceof PrepareError) return { ok: false, code: err.code, message: err.message };
    const reason = err instanceof Error ? err.message.split('\n')[0]!.slice(0, 200) : String(err);
    return { ok: false, code: 'processing_failed', message: reason };
  }
}
