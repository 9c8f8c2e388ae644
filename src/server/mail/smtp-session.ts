import { Readable } from 'node:stream';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import { parseConnectionUrl } from 'nodemailer/lib/shared';
import { withSearchedData } from './smtp-data.ts';
import type { SmtpErrorLike } from './smtp-outcome.ts';

/**
 * The SMTP side of a delivery: a small pool of nodemailer SMTP connections, one message to one
 * recipient per transaction, with the waits of RFC 5321 §4.5.3.2 and a hook just before the
 * message's terminating "." (docs/decisions/0040-smtp-timeouts-rfc-5321.md). Whether the final
 * dot was sent is what decides if a lost answer leaves the outcome unknown
 * (docs/decisions/0041-uncertain-means-maybe-twice.md).
 */

export interface SmtpTimeouts {
  /** TCP (and TLS) connection set-up; RFC 5321 names none. */
  connectMs: number;
  /** Initial 220 greeting. */
  greetingMs: number;
  /** Reply to MAIL FROM. */
  mailMs: number;
  /** Reply to each RCPT TO. */
  rcptMs: number;
  /** Reply (354) to DATA. */
  dataInitMs: number;
  /** The server taking each block of the message (no progress for this long ends it). */
  dataBlockMs: number;
  /** Reply to the final "." (the server is processing the whole message). */
  dataTerminationMs: number;
}

/** RFC 5321 §4.5.3.2's minimums (and a minute to connect). */
export const RFC_5321_TIMEOUTS: SmtpTimeouts = {
  connectMs: 60_000,
  greetingMs: 5 * 60_000,
  mailMs: 5 * 60_000,
  rcptMs: 5 * 60_000,
  dataInitMs: 2 * 60_000,
  dataBlockMs: 3 * 60_000,
  dataTerminationMs: 10 * 60_000,
};

/** Every wait multiplied by `scale` (SMTP_TIMEOUT_SCALE), never below 50 ms. */
export function scaleTimeouts(scale: number, base: SmtpTimeouts = RFC_5321_TIMEOUTS): SmtpTimeouts {
  const s = (ms: number) => Math.max(50, Math.round(ms * scale));
  return {
    connectMs: s(base.connectMs),
    greetingMs: s(base.greetingMs),
    mailMs: s(base.mailMs),
    rcptMs: s(base.rcptMs),
    dataInitMs: s(base.dataInitMs),
    dataBlockMs: s(base.dataBlockMs),
    dataTerminationMs: s(base.dataTerminationMs),
  };
}

export type SessionResult =
  | { ok: true; response: string }
  | {
      ok: false;
      error: SmtpErrorLike;
      /** Where the transaction stopped; `final` = after the terminating ".". */
      stage: SessionStage;
      /** The terminating "." was sent: the server may have accepted the message. */
      finalDotSent: boolean;
    };

export type SessionStage = 'connect' | 'envelope' | 'data' | 'final';

export interface SessionSend {
  /** Envelope sender. */
  from: string;
  /** Envelope recipient: one per transaction. */
  to: string;
  /** The whole message, exactly as it is to arrive. */
  message: Buffer;
  signal?: AbortSignal;
  /**
   * Awaited before the final "." is sent. If it rejects, the transaction is abandoned without the
   * dot, so the server cannot have accepted the message.
   */
  beforeFinalDot?: () => Promise<void>;
}

export interface SmtpSessionPoolOptions {
  /** smtp://user:pass@host:port or smtps://…; query parameters such as tls.rejectUnauthorized pass through. */
  url: string;
  maxConnections: number;
  /** Messages per connection before it is closed and a new one opened. */
  maxMessagesPerConnection?: number;
  timeouts: SmtpTimeouts;
}

interface Pooled {
  connection: SMTPConnection;
  messages: number;
  dead: boolean;
}

/** The body is handed to nodemailer in blocks of this size; each must be taken within dataBlockMs. */
const BLOCK_BYTES = 64 * 1024;

const timeoutError = (message: string): SmtpErrorLike => ({ code: 'ETIMEDOUT', message });

function describeWait(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  if (ms >= 1_000) return `${Math.round(ms / 100) / 10} s`;
  return `${ms} ms`;
}

export class SmtpSessionPool {
  private readonly idle: Pooled[] = [];
  private readonly open = new Set<Pooled>();
  /** Transactions under way, to end at close(). */
  private readonly active = new Set<() => void>();
  private readonly connectOptions: SMTPConnection.Options;
  private readonly auth: { user: string; pass: string } | undefined;
  private readonly maxMessages: number;
  private readonly maxIdle: number;
  private closed = false;

  constructor(private readonly options: SmtpSessionPoolOptions) {
    const parsed = parseConnectionUrl(options.url) as SMTPConnection.Options & {
      auth?: { user: string; pass: string };
    };
    const { auth, ...rest } = parsed;
    this.auth = auth?.user ? { user: auth.user, pass: auth.pass } : undefined;
    const t = options.timeouts;
    this.connectOptions = {
      ...rest,
      connectionTimeout: t.connectMs,
      greetingTimeout: t.greetingMs,
      // An idle-socket backstop for what has no timer of its own (EHLO, STARTTLS, AUTH); it must
      // not cut the longest wait short, so it is that wait.
      socketTimeout: Math.max(t.greetingMs, t.mailMs, t.dataTerminationMs),
      logger: false,
      debug: false,
    };
    this.maxMessages = options.maxMessagesPerConnection ?? 500;
    this.maxIdle = Math.max(1, options.maxConnections);
  }

  async send(send: SessionSend): Promise<SessionResult> {
    if (send.signal?.aborted) return { ok: false, error: STOPPED, stage: 'connect', finalDotSent: false };
    const reused = this.takeIdle();
    if (reused) {
      const result = await this.transact(reused, send);
      // A pooled connection the server had closed meanwhile fails before any reply: nothing was
      // sent, so try once more on a fresh connection instead of waiting for the backoff.
      if (result.ok || !isStaleConnection(result)) return result;
    }
    let fresh: Pooled;
    try {
      fresh = await this.connect(send.signal);
    } catch (err) {
      return { ok: false, error: err as SmtpErrorLike, stage: 'connect', finalDotSent: false };
    }
    return this.transact(fresh, send);
  }

  /** Closes every connection; sends still running fail. */
  close(): void {
    this.closed = true;
    for (const stop of [...this.active]) stop();
    for (const p of this.open) p.connection.close();
    this.open.clear();
    this.idle.length = 0;
  }

  private takeIdle(): Pooled | undefined {
    for (let p = this.idle.pop(); p; p = this.idle.pop()) {
      if (!p.dead) return p;
    }
    return undefined;
  }

  private discard(p: Pooled): void {
    p.dead = true;
    this.open.delete(p);
    p.connection.close();
  }

  private giveBack(p: Pooled): void {
    p.messages++;
    if (this.closed || p.dead || p.messages >= this.maxMessages || this.idle.length >= this.maxIdle) {
      this.open.delete(p);
      if (!p.dead) p.connection.quit();
      p.dead = true;
      return;
    }
    this.idle.push(p);
  }

  private connect(signal: AbortSignal | undefined): Promise<Pooled> {
    const connection = new SMTPConnection(this.connectOptions);
    // The DATA phase's dot-stuffing by search, not byte by byte (smtp-data.ts); the same bytes.
    withSearchedData(connection);
    const pooled: Pooled = { connection, messages: 0, dead: false };
    this.open.add(pooled);
    // A connection reports failures as 'error' events too; without a listener they would throw.
    connection.on('error', () => {
      pooled.dead = true;
    });
    connection.once('end', () => {
      pooled.dead = true;
      this.open.delete(pooled);
    });
    return new Promise<Pooled>((resolve, reject) => {
      let settled = false;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        this.discard(pooled);
        reject(err instanceof Error ? err : new Error(String(err)));
      };
      const onAbort = () => fail(Object.assign(new Error('Delivery stopped'), { code: 'EABORT' }));
      signal?.addEventListener('abort', onAbort, { once: true });
      // Timeouts and refused connections arrive as 'error' events, not through connect's callback.
      connection.once('error', fail);
      connection.once('end', () =>
        fail(Object.assign(new Error('Connection closed unexpectedly'), { code: 'ECONNECTION' })),
      );
      connection.connect((err) => {
        if (err) return fail(err);
        if (!this.auth) return done();
        connection.login(this.auth, (loginErr) => (loginErr ? fail(loginErr) : done()));
      });
      const done = () => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', onAbort);
        resolve(pooled);
      };
    });
  }

  /** One transaction (MAIL, RCPT, DATA, the message, the final dot) with RFC 5321's waits. */
  private transact(p: Pooled, send: SessionSend): Promise<SessionResult> {
    const t = this.options.timeouts;
    const { message, signal } = send;
    return new Promise<SessionResult>((resolve) => {
      let stage: SessionStage = 'envelope';
      let done = false;
      let timer: NodeJS.Timeout | undefined;

      const finish = (result: SessionResult) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        this.active.delete(onAbort);
        if (result.ok) this.giveBack(p);
        else this.discard(p);
        resolve(result);
      };
      const fail = (error: SmtpErrorLike) =>
        finish({ ok: false, error, stage, finalDotSent: stage === 'final' });
      const arm = (ms: number, error: SmtpErrorLike) => {
        clearTimeout(timer);
        timer = setTimeout(() => fail(error), ms);
      };
      const onAbort = () => fail(STOPPED);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.active.add(onAbort);

      // MAIL, RCPT and DATA each have their own minimum; the client library gives no sign of
      // which reply it waits for, so the envelope gets their sum (no command is cut short).
      const envelopeMs = t.mailMs + t.rcptMs + t.dataInitMs;
      arm(
        envelopeMs,
        timeoutError(`The mail server did not answer MAIL, RCPT and DATA within ${describeWait(envelopeMs)}`),
      );

      let offset = 0;
      let gating = false;
      const body = new Readable({
        read: () => {
          if (done) return;
          // nodemailer reads the body once the server said 354 to DATA.
          stage = 'data';
          arm(
            t.dataBlockMs,
            timeoutError(`The mail server stopped taking the message for ${describeWait(t.dataBlockMs)}`),
          );
          if (offset < message.length) {
            const block = message.subarray(offset, offset + BLOCK_BYTES);
            offset += block.length;
            body.push(block);
            return;
          }
          if (gating) return;
          gating = true;
          (send.beforeFinalDot ? send.beforeFinalDot() : Promise.resolve()).then(
            () => {
              if (done) return;
              stage = 'final';
              arm(
                t.dataTerminationMs,
                timeoutError(
                  `The mail server did not confirm the message within ${describeWait(t.dataTerminationMs)}`,
                ),
              );
              body.push(null); // nodemailer ends the message with CRLF "." CRLF
            },
            (err: unknown) =>
              fail({
                code: 'EGATE',
                message: `Stopped before the end of the message: ${(err as Error).message ?? String(err)}`,
              }),
          );
        },
      });
      // The failures of this stream are reported through send's callback.
      body.on('error', () => undefined);

      try {
        p.connection.send({ from: send.from, to: [send.to], size: message.length }, body, (err, info) => {
          if (err) fail(err as SmtpErrorLike);
          else finish({ ok: true, response: String(info.response ?? '') });
        });
      } catch (err) {
        fail(err as SmtpErrorLike);
      }
    });
  }
}

const STOPPED: SmtpErrorLike = { code: 'EABORT', message: 'Delivery stopped' };

/**
 * A reused connection that turned out closed before the envelope was answered: no reply at all,
 * or the 421 of a server that closes idle connections. Nothing was sent.
 */
function isStaleConnection(result: Extract<SessionResult, { ok: false }>): boolean {
  const code = typeof result.error.code === 'string' ? result.error.code : '';
  if (result.stage !== 'envelope') return false;
  if (result.error.responseCode === 421) return true;
  return (
    typeof result.error.responseCode !== 'number' &&
    (code === 'ECONNECTION' || code === 'ESOCKET' || code === 'EPIPE')
  );
}
