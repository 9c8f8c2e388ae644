import { parentPort } from 'node:worker_threads';
import { measureMessage, type MessagePart, type WireEnvelope } from './measure-message.ts';
import { failureReason } from './prepare-error.ts';
import type { MessageHeader } from '../mail/message.ts';

/**
 * The entry of a transform process's measuring thread (measure-beside.ts,
 * docs/decisions/0094-measure-beside-the-checks.md): it makes the text part and the MIME message of
 * one job while the process checks the HTML. It loads only measure-message.ts and what that needs.
 */

export interface MeasureRequest {
  id: number;
  part: MessagePart;
  envelope: WireEnvelope;
}

export type MeasureReply =
  | { ready: true }
  | { id: number; ok: true; text: string; message: Uint8Array; headers: MessageHeader[] }
  | { id: number; ok: false; error: string };

const port = parentPort;
if (port) {
  port.on('message', ({ id, part, envelope }: MeasureRequest) => {
    measureMessage(part, { ...envelope, date: new Date(envelope.date) }).then(
      ({ text, message, headers }) =>
        port.postMessage({ id, ok: true, text, message, headers } satisfies MeasureReply),
      (err: unknown) =>
        port.postMessage({
          id,
          ok: false,
          error: failureReason(err),
        } satisfies MeasureReply),
    );
  });
  port.postMessage({ ready: true } satisfies MeasureReply);
}
