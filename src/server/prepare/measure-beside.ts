import { Buffer } from 'node:buffer';
import { Worker } from 'node:worker_threads';
import type { MeasuredMessage, MessagePart, PrepareEnvelope } from './measure-message.ts';
import type { MeasureReply, MeasureRequest } from './measure-thread.ts';

/**
 * A transform process's measuring thread (docs/decisions/0094-measure-beside-the-checks.md). A job
 * with checks hands it the text part and the MIME message (measure-message.ts) and checks the HTML
 * meanwhile, so on a machine with a free core the two halves take the time of the longer one. The
 * results are the same as measuring in the process itself: the same function on the same input.
 */

/**
 * From this much HTML (characters) a job measures beside its checks. Below it both halves take a
 * millisecond or two, and the trip between threads would cost more than it saves.
 */
export const BESIDE_FROM_CHARS = 32 * 1024;

/** The thread's heap cap (MiB): a message of the largest accepted HTML needs a fraction of it. */
const THREAD_HEAP_MB = 256;

export interface MeasureBeside {
  /**
   * Starts measuring on the thread. Undefined until the thread is up (the first call starts it) or
   * after it stopped (the next call starts another): the caller then measures itself.
   */
  start(part: MessagePart, envelope: PrepareEnvelope): Promise<MeasuredMessage> | undefined;
  /** Stops the thread (the process's exit does as much). */
  close(): Promise<void>;
}

interface Waiting {
  resolve: (measured: MeasuredMessage) => void;
  reject: (err: Error) => void;
}

/**
 * `file`: the thread's entry (measure-thread.ts, bundled; see transform-pool.ts). `heapMb`: the
 * thread's heap cap (tests give a small one to see it run out).
 */
export function measureBeside(file: string, heapMb = THREAD_HEAP_MB): MeasureBeside {
  let worker: Worker | undefined;
  let ready = false;
  let nextId = 1;
  const waiting = new Map<number, Waiting>();

  function boot(): void {
    const thread = new Worker(file, { resourceLimits: { maxOldGenerationSizeMb: heapMb } });
    worker = thread;
    ready = false;
    // The process lives for its IPC channel (transform-worker.ts), never for this thread.
    thread.unref();
    thread.on('message', (reply: MeasureReply) => {
      if ('ready' in reply) {
        ready = true;
        return;
      }
      const job = waiting.get(reply.id);
      if (!job) return;
      waiting.delete(reply.id);
      if (!reply.ok) return job.reject(new Error(reply.error));
      const { text, message, headers } = reply;
      job.resolve({
        text,
        message: Buffer.from(message.buffer, message.byteOffset, message.byteLength),
        headers,
      });
    });
    const stopped = (err: Error) => {
      if (worker === thread) {
        worker = undefined;
        ready = false;
      }
      for (const job of waiting.values()) job.reject(err);
      waiting.clear();
    };
    // Out of memory, or a crash: the jobs it held fail (runTask then measures them in line), and a
    // later job starts another.
    thread.on('error', (err) => stopped(err));
    thread.on('exit', (code) => stopped(new Error(`the measuring thread stopped (exit code ${code})`)));
  }

  // Started by the first large job, not with the process: many processes never see one.
  return {
    start(part, envelope) {
      if (!worker) boot();
      if (!worker || !ready) return undefined;
      const id = nextId++;
      const measured = new Promise<MeasuredMessage>((resolve, reject) =>
        waiting.set(id, { resolve, reject }),
      );
      worker.postMessage({
        id,
        part: { html: part.html, subject: part.subject, ownText: part.ownText },
        envelope: { ...envelope, date: envelope.date.getTime() },
      } satisfies MeasureRequest);
      return measured;
    },
    async close() {
      const thread = worker;
      worker = undefined;
      await thread?.terminate();
    },
  };
}
