import { parentPort } from 'node:worker_threads';
import { measureMessage, type MessagePart, type WireEnvelope } from './measure-message.ts';
import { failureReason } from './prepare-error.ts';
import type { MessageHeader } from '../mail/message.ts';
import { textFromHtml } from '../mail/text-part.ts';

/**
 * The entry of a transform process's measuring thread (measure-beside.ts,
 * docs/decisions/0094-measure-beside-the-checks.md): for one job it generates the text part while
 * the process inlines the CSS, then builds the MIME message while the process checks the HTML. It
 * loads only measure-message.ts, the text-part rules and what they need.
 */

/** The text part of this HTML, or the message of this part. */
export type MeasureWork =
  { text: { html: string } } | { measure: { part: MessagePart; envelope: WireEnvelope } };
export type MeasureRequest = MeasureWork & { id: number };

export type MeasureReply =
  | { ready: true }
  | { id: number; ok: true; text: string }
  | { id: number; ok: true; message: Uint8Array; headers: MessageHeader[] }
  | { id: number; ok: false; error: string };

async function answer(request: MeasureRequest): Promise<MeasureReply> {
  if ('text' in request) return { id: request.id, ok: true, text: textFromHtml(request.text.html) };
  const { part, envelope } = request.measure;
  const { message, headers } = await measureMessage(part, { ...envelope, date: new Date(envelope.date) });
  return { id: request.id, ok: true, message, headers };
}

const port = parentPort;
if (port) {
  port.on('message', (request: MeasureRequest) => {
    answer(request).then(
      (reply) => port.postMessage(reply),
      (err: unknown) =>
        port.postMessage({ id: request.id, ok: false, error: failureReason(err) } satisfies MeasureReply),
    );
  });
  port.postMessage({ ready: true } satisfies MeasureReply);
}
