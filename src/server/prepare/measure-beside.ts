import { Buffer } from 'node:buffer';
import { Worker } from 'node:worker_threads';
import type { MeasuredMessage, MessagePart, PrepareEnvelope } from './measure-message.ts';
import type { MeasureReply, MeasureRequest, MeasureWork } from './measure-thread.ts';

/**
 * A transform process's measuring thread (docs/decisions/0094-measure-beside-the-checks.md). A large
 * job hands it the text part to generate while the process inlines the CSS
 * (docs/decisions/0105-text-part-beside-the-inlining.md), and, with checks, the MIME message
 * (measure-message.ts) to build while the process checks the HTML. On a machine with a free core
 * the halves take the time of the longer one. The results are the same as in the process itself:
 * the same functions on the same input.
 */

/**
 * From this much HTML (characters) a job uses the thread. Below it both halves take a millisecond
 * or two, and the trip between threads would cost more than it saves.
 */
export const BESIDE_FROM_CHARS = 32 * 1024;

/** The thread's heap cap (MiB): a message of the largest accepted HTML needs a fraction of it. */
const THREAD_HEAP_MB = 256;

/**
 * Each call starts its work on the thread, or answers undefined until the thread is up (the first
 * call starts it) or after it stopped (the next call starts another): the caller then does the work
 * itself.
 */
export interface MeasureBeside {
  /** The generated text part of this HTML (`textFromHtml`, text-part.ts). */
  text(html: string): Promise<string> | undefined;
  /** The message as it leaves (`measureMessage`). */
  measure(part: MessagePart, envelope: PrepareEnvelope): Promise<MeasuredMessage> | undefined;
  /** Stops the thread (the process's exit does as much). */
  close(): Promise<void>;
}

type Answer = Exclude<MeasureReply, { ready: true } | { ok: false }>;

interface Waiting {
  resolve: (answer: Answer) => void;
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
      if (reply.ok) job.resolve(reply);
      else job.reject(new Error(reply.error));
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

  /** Posts one request; undefined while there is no ready thread. */
  function ask(work: MeasureWork): Promise<Answer> | undefined {
    if (!worker) boot();
    if (!worker || !ready) return undefined;
    const id = nextId++;
    const answered = new Promise<Answer>((resolve, reject) => waiting.set(id, { resolve, reject }));
    worker.postMessage({ id, ...work } satisfies MeasureRequest);
    return answered;
  }

  // Started by the first large job, not with the process: many processes never see one.
  return {
    text(html) {
      return ask({ text: { html } })?.then((answer) => {
        if (!('text' in answer)) throw new Error('the measuring thread answered with a message');
        return answer.text;
      });
    },
    measure(part, envelope) {
      return ask({
        measure: {
          part: { html: part.html, text: part.text, subject: part.subject },
          envelope: { ...envelope, date: envelope.date.getTime() },
        },
      })?.then((answer) => {
        if (!('message' in answer)) throw new Error('the measuring thread answered with a text part');
        const { message, headers } = answer;
        return { message: Buffer.from(message.buffer, message.byteOffset, message.byteLength), headers };
      });
    },
    async close() {
      const thread = worker;
      worker = undefined;
      await thread?.terminate();
    },
  };
}
