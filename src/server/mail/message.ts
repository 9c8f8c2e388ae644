import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import type Mail from 'nodemailer/lib/mailer';
import { encodeWord } from 'nodemailer/lib/mime-funcs';
import { assembleMessage } from './mime-assembly.ts';

/**
 * The one builder of a mail's MIME bytes (docs/architecture.md §9). The transport sends exactly
 * what this returns, the preview measures it, and `message.eml` rebuilds it from what was stored,
 * so all three are the same bytes for the same input.
 */
export interface MessageInput {
  /** MAIL_FROM, "Name <user@domain>" or "user@domain". */
  from: string;
  /** Plain addresses, already validated. */
  to: string[];
  replyTo: string | null;
  subject: string;
  html: string;
  text: string;
  /** "<uuid@domain>". */
  messageId: string;
  /** The Date header: when the mail was accepted (the same on every attempt). */
  date: Date;
}

/** The headers that differ between the recipients of one email: everything else is shared. */
export const PER_RECIPIENT_HEADERS = ['To', 'Message-ID', 'Date'] as const;

/** "Name <user@domain>" or "user@domain" → an address object (never a string nodemailer parses). */
export function parseMailbox(value: string): { name: string; address: string } {
  const match = /^\s*(.*?)\s*<([^<>\s]+)>\s*$/.exec(value);
  if (!match) return { name: '', address: value.trim() };
  const name = (match[1] ?? '').replace(/^"(.*)"$/, '$1').trim();
  return { name, address: match[2]! };
}

const stripLineBreaks = (s: string) => s.replace(/[\r\n]+/g, ' ');

/** Text a mail client would take for RFC 2047 encoded words (`=?charset?Q?text?=`) and decode. */
const LOOKS_ENCODED = /=\?[\s\S]*\?=/;
/** A word nodemailer cannot fold within RFC 5322's 998 characters a line (after the fold's space). */
const UNFOLDABLE = /\S{998}/;

/**
 * The Subject as nodemailer is to write it. nodemailer encodes only words beyond ASCII, so a
 * subject that reads like an encoded word ("Use =?UTF-8?B?SGk=?= in headers") went out as it is
 * and arrived decoded ("Use Hi in headers"), and folds only at spaces, so a subject of one
 * 998-character word made a 999-character line. Such a subject goes out encoded as a whole (encoded
 * words fold anywhere), and every client shows what was written.
 */
function subjectHeader(subject: string): string {
  const line = stripLineBreaks(subject);
  return LOOKS_ENCODED.test(line) || UNFOLDABLE.test(line) ? encodeWord(line, 'Q', 52) : line;
}

/**
 * The multipart boundary comes from a hash of the content, so the same input gives the same
 * bytes, and no part can contain its own boundary (that would need a SHA-256 fixed point).
 */
function boundaryFor(input: MessageInput): string {
  return createHash('sha256').update(input.html).update('\0').update(input.text).digest('hex').slice(0, 24);
}

/** nodemailer 10 supports `baseBoundary`; its type package does not know it yet. */
export type ComposerOptions = Mail.Options & { baseBoundary: string; newline: string };

/** Control characters and everything beyond ASCII: what keeps a text from going out as 7bit. */
// eslint-disable-next-line no-control-regex -- control characters are what it looks for
const NOT_PLAIN = /[\x00-\x08\x0b\x0c\x0e-\x1f\u0080-\uffff]/;
/**
 * Whether an ASCII text has a line over 76 characters (nodemailer's `hasLongerLines(content, 76)`,
 * the regular expression /^.{77,}/m, whose lines end at CR or LF). A loop that stops at the first
 * long line: the expression walked the whole of a long one, a tenth of a millisecond per build.
 */
function hasLineOver76(content: string): boolean {
  let run = 0;
  for (let i = 0; i < content.length; i++) {
    const code = content.charCodeAt(i);
    if (code === 0x0a || code === 0x0d) run = 0;
    else if (++run > 76) return true;
  }
  return false;
}
/**
 * The Content-Transfer-Encoding nodemailer chooses for a text part (its MimeNode's
 * `getTransferEncoding`), made once. nodemailer scans the whole part for it twice per build, one
 * character at a time; that was half the time of building a large message. Undefined where it
 * would go out as 7bit (nodemailer then decides without a scan). `message.test.ts` holds the two
 * choices equal.
 */
export function transferEncodingOf(content: string): 'quoted-printable' | 'base64' | undefined {
  const plain = !NOT_PLAIN.test(content);
  // nodemailer takes a text over 128 KiB to have long lines without looking.
  if (plain && content.length <= 128 * 1024 && !hasLineOver76(content)) return undefined;
  // More Latin letters than control and non-ASCII characters (UTF-16 units): quoted-printable.
  if (plain) return /[A-Za-z]/.test(content) ? 'quoted-printable' : 'base64';
  let nonLatin = 0;
  let latin = 0;
  for (let i = 0; i < content.length; i++) {
    const code = content.charCodeAt(i);
    if (code <= 0x08 || code === 0x0b || code === 0x0c || (code >= 0x0e && code <= 0x1f) || code >= 0x80)
      nonLatin++;
    else if ((code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a)) latin++;
  }
  return nonLatin < latin ? 'quoted-printable' : 'base64';
}

/**
 * A text part with its transfer encoding chosen here; as a plain string where it goes out as 7bit.
 * An encoded part is handed over as its UTF-8 bytes: nodemailer scans a string part again when it
 * is set (for plain text, then for long lines), and bytes with a chosen encoding it takes as they are.
 */
function part(content: string): string | { content: Buffer; contentTransferEncoding: string } {
  const encoding = transferEncodingOf(content);
  return encoding ? { content: Buffer.from(content, 'utf8'), contentTransferEncoding: encoding } : content;
}

/**
 * Builds the message as it leaves: CRLF line ends (what SMTP carries, so the bytes at the
 * recipient's server are these bytes), no X-Mailer, no file or URL access.
 */
export function buildMessage(input: MessageInput): Promise<Buffer> {
  return compose(composerOptions(input));
}

/** What `buildMessage` hands nodemailer's MailComposer. */
export function composerOptions(input: MessageInput): ComposerOptions {
  return {
    from: parseMailbox(input.from),
    to: input.to.map((address) => ({ name: '', address })),
    replyTo: input.replyTo ? { name: '', address: input.replyTo } : undefined,
    subject: subjectHeader(input.subject),
    messageId: input.messageId,
    date: input.date,
    text: part(input.text),
    html: part(input.html),
    baseBoundary: boundaryFor(input),
    newline: '\r\n',
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}

/**
 * nodemailer's message for `options`, assembled in one synchronous pass where the tree allows
 * (mime-assembly.ts; every message this app builds), streamed by nodemailer otherwise.
 */
export function compose(options: ComposerOptions): Promise<Buffer> {
  const root = new MailComposer(options).compile();
  const assembled = assembleMessage(root);
  return assembled ? Promise.resolve(assembled) : streamed(root);
}

/** nodemailer's own streamed build of a compiled tree: the reference `compose` is held to. */
export function streamed(root: ReturnType<MailComposer['compile']>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    root.build((err, message) => (err ? reject(err) : resolve(message)));
  });
}

export interface MessageHeader {
  name: string;
  value: string;
}

/** The header block of a built message, unfolded, in order. */
export function headersOf(message: Buffer): MessageHeader[] {
  const end = message.indexOf('\r\n\r\n');
  const block = message.subarray(0, end === -1 ? message.length : end).toString('utf8');
  const headers: MessageHeader[] = [];
  for (const line of block.split('\r\n')) {
    const last = headers[headers.length - 1];
    if (/^[ \t]/.test(line) && last) last.value += ` ${line.trim()}`;
    else {
      const colon = line.indexOf(':');
      if (colon > 0) headers.push({ name: line.slice(0, colon), value: line.slice(colon + 1).trim() });
    }
  }
  return headers;
}

/** The headers every recipient of the message gets alike (To, Message-ID and Date left out). */
export function sharedHeadersOf(message: Buffer): MessageHeader[] {
  const perRecipient = new Set<string>(PER_RECIPIENT_HEADERS.map((h) => h.toLowerCase()));
  return headersOf(message).filter((h) => !perRecipient.has(h.name.toLowerCase()));
}
