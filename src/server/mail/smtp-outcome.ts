/**
 * What one SMTP delivery attempt means for the outbox row (docs/architecture.md §5):
 * - 2xx                                    → sent
 * - 4xx, connection errors, timeouts       → retry later (backoff)
 * - 5xx                                    → failed at once, with the server's code and text
 * - no answer once the message's final "." was sent: the server may have taken it, so the retry
 *   is flagged `uncertain` (a duplicate is possible, and then only on flagged rows;
 *   docs/decisions/0041-uncertain-means-maybe-twice.md). A connection lost before the dot is not:
 *   a server never accepts a message without it.
 */

export type DeliveryResult =
  | { status: 'sent'; response: string }
  | { status: 'retry' | 'failed'; code: number | null; message: string; uncertain: boolean };

/** The fields of a nodemailer error that decide its meaning. */
export interface SmtpErrorLike {
  code?: unknown;
  originalCode?: unknown;
  responseCode?: unknown;
  response?: unknown;
  message?: unknown;
  command?: unknown;
  name?: unknown;
}

/** Errors about the message itself: sending it again cannot help. */
const PERMANENT_LOCAL_CODES = new Set([
  'EENVELOPE', // no or invalid recipients/sender (without a server reply)
  'EMESSAGE', // larger than the server's SIZE, empty message
  'EFILEACCESS',
  'EURLACCESS',
  'EMAXRECIPIENTS',
]);

const MAX_ERROR_TEXT = 2_000;

/** One line, printable, bounded: it is stored on the row and shown to people. */
export function cleanErrorText(text: string): string {
  const oneLine = text
    // eslint-disable-next-line no-control-regex -- stripping control characters is the point
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
  return oneLine.length > MAX_ERROR_TEXT ? `${oneLine.slice(0, MAX_ERROR_TEXT - 1)}…` : oneLine;
}

function describe(err: SmtpErrorLike): string {
  const code = typeof err.code === 'string' ? err.code : '';
  const original = typeof err.originalCode === 'string' ? err.originalCode : '';
  const message = typeof err.message === 'string' ? err.message : String(err);
  if (/^The mail server /.test(message)) return message;
  if (code === 'ETIMEDOUT') {
    if (/greeting/i.test(message)) return 'The mail server did not send its greeting in time';
    if (/connection timeout/i.test(message)) return 'Timed out connecting to the mail server';
    return `Timed out talking to the mail server (${message})`;
  }
  if (original === 'ECONNREFUSED' || /ECONNREFUSED/.test(message))
    return `The mail server refused the connection (${message})`;
  if (code === 'ECONNECTION' && /closed unexpectedly/i.test(message))
    return 'The mail server closed the connection unexpectedly';
  return message;
}

/** Classifies a failed attempt; `finalDotSent` = the message's terminating "." had been sent. */
export function classifySmtpError(
  err: SmtpErrorLike,
  finalDotSent: boolean,
): Extract<DeliveryResult, { status: 'retry' | 'failed' }> {
  const code = typeof err.code === 'string' ? err.code : '';
  const responseCode =
    typeof err.responseCode === 'number' && err.responseCode >= 200 ? err.responseCode : null;
  const response = typeof err.response === 'string' && err.response.trim() ? err.response : null;

  if (responseCode !== null) {
    // The server answered: whatever it said, it did not take the message, so nothing is uncertain.
    // An authentication failure is our configuration, not the mail: keep it for after the fix.
    const permanent = responseCode >= 500 && code !== 'EAUTH';
    return {
      status: permanent ? 'failed' : 'retry',
      code: responseCode,
      message: cleanErrorText(response ?? describe(err)),
      uncertain: false,
    };
  }
  if (PERMANENT_LOCAL_CODES.has(code)) {
    return { status: 'failed', code: null, message: cleanErrorText(describe(err)), uncertain: false };
  }
  // Connection refused/reset/closed, timeouts, DNS, TLS, protocol noise, aborts: try again.
  return {
    status: 'retry',
    code: null,
    message: cleanErrorText(
      finalDotSent
        ? `${describe(err)} after the whole message was sent; the server may have accepted it`
        : describe(err),
    ),
    uncertain: finalDotSent,
  };
}
