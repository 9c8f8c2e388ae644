import { Buffer } from 'node:buffer';
import type { Transform } from 'node:stream';
import { Encoder as Base64Encoder } from 'nodemailer/lib/base64';
import { Encoder as QpEncoder } from 'nodemailer/lib/qp';

/**
 * nodemailer's MIME tree (MailComposer's `compile()`) turned into bytes in one synchronous pass
 * (docs/decisions/0102-mime-assembled-in-one-pass.md). nodemailer's own `build()` streams the tree:
 * a pipeline of streams per node, a `setImmediate` between every step and an AbortSignal with a
 * DOMException per pipeline, which cost more than the encoding itself. Here the same steps run in
 * the same order on the same nodes: each node's `buildHeaders()`, its content through nodemailer's
 * own quoted-printable or base64 encoder (fed the whole content as one chunk, as the stream does),
 * the boundaries as `MimeNode.stream` writes them, then its last-newline and CRLF passes. So the
 * bytes are nodemailer's; `mime-assembly.test.ts` holds them equal to a streamed build.
 *
 * A tree with anything else (raw nodes, transforms, streamed, file or URL content) is not handled:
 * `assembleMessage` answers undefined and the caller streams it.
 */

/** What this reads of nodemailer's MimeNode (its type package does not describe the internals). */
interface MimeTreeNode {
  rootNode: MimeTreeNode;
  childNodes: MimeTreeNode[];
  multipart: string | false;
  boundary: string | false;
  content: unknown;
  contentType: string | false;
  _raw: unknown;
  _transforms: unknown[];
  _processFuncs: unknown[];
  newline: unknown;
  buildHeaders(): string;
  getTransferEncoding(): string | false;
}

const noError = (err?: Error | null) => {
  if (err) throw err;
};

/** Runs one of nodemailer's encoder streams on `input` as a single chunk, without the stream. */
function encodeWith(encoder: Transform, input: Buffer): string {
  let out = '';
  // The encoders hand their output to `push`; nothing reads the stream, so take it here.
  encoder.push = (chunk: unknown) => {
    if (chunk !== null && chunk !== undefined)
      out += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('latin1');
    return true;
  };
  // A Buffer chunk arrives with the encoding "buffer", which BufferEncoding does not name.
  encoder._transform(input, 'buffer' as BufferEncoding, noError);
  encoder._flush(noError);
  return out;
}

const isEncoded = (transferEncoding: string | false) =>
  transferEncoding === 'quoted-printable' || transferEncoding === 'base64';

/** Text content, or bytes that go out encoded (raw bytes would need the stream's byte handling). */
function supported(node: MimeTreeNode): boolean {
  if (node._raw || node._transforms.length > 0 || node._processFuncs.length > 0) return false;
  const { content } = node;
  const bytes = Buffer.isBuffer(content) && isEncoded(node.getTransferEncoding());
  if (content !== undefined && content !== false && typeof content !== 'string' && !bytes) return false;
  if (node.multipart && node.content) return false;
  return node.childNodes.every(supported);
}

/** `MimeNode.stream` for one node, as strings in `out`. */
function emit(node: MimeTreeNode, out: string[]): void {
  const transferEncoding = node.getTransferEncoding();
  out.push(`${node.buildHeaders()}\r\n\r\n`);
  const content = node.content as string | Buffer | undefined | false;
  if (content) {
    if (isEncoded(transferEncoding)) {
      const input = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      const encoder =
        transferEncoding === 'base64'
          ? new Base64Encoder({})
          : new QpEncoder({ binary: !/^text\//i.test(node.contentType || '') });
      out.push(encodeWith(encoder, input));
    } else {
      out.push(content as string);
    }
  }
  if (!node.multipart) return;
  node.childNodes.forEach((child, i) => {
    out.push(`${i > 0 ? '\r\n' : ''}--${node.boundary}\r\n`);
    emit(child, out);
  });
  out.push(`\r\n--${node.boundary}--\r\n`);
}

/** Every LF not preceded by CR becomes CRLF (nodemailer's LeWindows). */
function crlf(message: Buffer): Buffer {
  const parts: Buffer[] = [];
  let from = 0;
  for (let at = message.indexOf(0x0a); at !== -1; at = message.indexOf(0x0a, at + 1)) {
    if (at > 0 && message[at - 1] === 0x0d) continue;
    parts.push(message.subarray(from, at), CRLF);
    from = at + 1;
  }
  if (parts.length === 0) return message;
  parts.push(message.subarray(from));
  return Buffer.concat(parts);
}
const CRLF = Buffer.from('\r\n');

/**
 * The message of a compiled tree with CRLF line ends, or undefined when the tree has a part this
 * does not handle.
 */
export function assembleMessage(root: unknown): Buffer | undefined {
  const node = root as MimeTreeNode;
  if (node.rootNode !== node || !supported(node)) return undefined;
  if (!['win', 'windows', 'dos', '\r\n'].includes(String(node.newline).toLowerCase())) return undefined;
  const out: string[] = [];
  emit(node, out);
  let message = out.join('');
  // nodemailer's LastNewline: the message ends with a line break.
  if (message.endsWith('\r')) message += '\n';
  else if (!message.endsWith('\n')) message += '\r\n';
  return crlf(Buffer.from(message, 'utf8'));
}
