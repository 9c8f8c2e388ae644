import { simpleParser, type ParsedMail } from 'mailparser';
import type net from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';
import { freePort } from './free-port.ts';

/**
 * A real SMTP server on loopback for tests and the benchmark. It records every message it
 * received in full, and can be told to misbehave: answer 4xx/5xx at RCPT (for every recipient or
 * one address) or after DATA, drop the connection in the middle of DATA (or after the final dot,
 * before replying), delay its greeting, its reply to the final dot, or be down altogether
 * (connection refused).
 */

export interface SinkMessage {
  /** Message-ID header, angle brackets included. */
  messageId: string | undefined;
  envelopeFrom: string | undefined;
  envelopeTo: string[];
  raw: Buffer;
  receivedAt: number;
}

interface Fault {
  code: number;
  message: string;
  times: number;
  /** Only for this recipient (lower case); every recipient when absent. */
  address?: string;
}

export interface SmtpSinkOptions {
  /** Start without listening (connections are refused until up()). */
  down?: boolean;
  /** Wait this long before answering each message (a slow server). */
  dataDelayMs?: number;
  /** Keep each message's bytes (default); the benchmark keeps only ids and sizes. */
  keepRaw?: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function smtpError(code: number, message: string): Error {
  return Object.assign(new Error(message), { responseCode: code });
}

function headerMessageId(raw: Buffer): string | undefined {
  const end = raw.indexOf('\r\n\r\n');
  const head = raw.subarray(0, end === -1 ? Math.min(raw.length, 64 * 1024) : end).toString('latin1');
  return /^message-id:\s*(<[^>\r\n]+>)/im.exec(head)?.[1];
}

export class SmtpSink {
  readonly messages: SinkMessage[] = [];
  /** DATA commands started (including ones that failed or were dropped). */
  dataAttempts = 0;
  connections = 0;
  dataDelayMs: number;
  /** Bytes received in complete messages. */
  bytes = 0;
  /** Every RCPT TO address, in order, whatever the answer. */
  readonly rcptAttempts: string[] = [];

  private readonly keepRaw: boolean;
  private server: SMTPServer | undefined;
  private rcptFaults: Fault[] = [];
  private mailFault: Fault | undefined;
  private replyDelay: { ms: number; times: number } | undefined;
  private rcptDelay: { ms: number; times: number } | undefined;
  private dataFault: Fault | undefined;
  private dropMid = 0;
  private dropAfter = 0;
  private greeting: { ms: number; times: number } | undefined;
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  private constructor(
    readonly port: number,
    options: SmtpSinkOptions,
  ) {
    this.dataDelayMs = options.dataDelayMs ?? 0;
    this.keepRaw = options.keepRaw ?? true;
  }

  static async start(options: SmtpSinkOptions = {}): Promise<SmtpSink> {
    const sink = new SmtpSink(await freePort(), options);
    if (!options.down) await sink.up();
    return sink;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  /** Answer the next `times` RCPT commands with this reply (e.g. 451 or 550). */
  failRcpt(code: number, message: string, times = Infinity): void {
    this.rcptFaults = [{ code, message, times }];
  }

  /** Answer the next `times` MAIL FROM commands with this reply (a 421: the server closing). */
  failMailFrom(code: number, message: string, times = Infinity): void {
    this.mailFault = { code, message, times };
  }

  /** Answer the next `times` RCPT commands for this address with this reply; others are accepted. */
  failRcptFor(address: string, code: number, message: string, times = Infinity): void {
    this.rcptFaults = [
      ...this.rcptFaults.filter((f) => f.address !== address.toLowerCase()),
      { code, message, times, address: address.toLowerCase() },
    ];
  }

  /** Wait `ms` before answering each of the next `times` RCPT commands. */
  delayRcpt(ms: number, times = Infinity): void {
    this.rcptDelay = { ms, times };
  }

  /** Record the next `times` messages, then wait `ms` before answering the final dot. */
  delayFinalReply(ms: number, times = Infinity): void {
    this.replyDelay = { ms, times };
  }

  /** Read the next `times` messages in full, then answer with this reply instead of 250. */
  failData(code: number, message: string, times = Infinity): void {
    this.dataFault = { code, message, times };
  }

  /** Cut the connection as each of the next `times` messages starts to arrive (not recorded). */
  dropMidData(times = 1): void {
    this.dropMid = times;
  }

  /** Record the next `times` messages, then cut the connection before answering (a lost 250). */
  dropAfterData(times = 1): void {
    this.dropAfter = times;
  }

  /** Hold the greeting of the next `times` connections for `ms`. */
  delayGreeting(ms: number, times = Infinity): void {
    this.greeting = { ms, times };
  }

  /** Forgets what was received (the benchmark reuses one sink across rounds). */
  clear(): void {
    this.messages.length = 0;
    this.bytes = 0;
    this.dataAttempts = 0;
    this.connections = 0;
  }

  /** Back to a well-behaved server. */
  heal(): void {
    this.rcptFaults = [];
    this.mailFault = undefined;
    this.replyDelay = undefined;
    this.rcptDelay = undefined;
    this.dataFault = undefined;
    this.dropMid = 0;
    this.dropAfter = 0;
    this.greeting = undefined;
    this.dataDelayMs = 0;
  }

  /** Message-ID → how many times it was received. */
  counts(): Map<string, number> {
    const m = new Map<string, number>();
    for (const msg of this.messages) if (msg.messageId) m.set(msg.messageId, (m.get(msg.messageId) ?? 0) + 1);
    return m;
  }

  byMessageId(messageId: string): SinkMessage[] {
    return this.messages.filter((m) => m.messageId === messageId);
  }

  parse(message: SinkMessage): Promise<ParsedMail> {
    return simpleParser(message.raw);
  }

  /** Resolves once `check()` holds (re-checked on every message), or fails after `timeoutMs`. */
  waitUntil(check: () => boolean, timeoutMs = 20_000, what = 'condition'): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(
          new Error(
            `SMTP sink: timed out after ${timeoutMs} ms waiting for ${what} (${this.messages.length} received)`,
          ),
        );
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  waitForCount(n: number, timeoutMs = 20_000): Promise<void> {
    return this.waitUntil(() => this.messages.length >= n, timeoutMs, `${n} messages`);
  }

  async up(): Promise<void> {
    if (this.server) return;
    const server = new SMTPServer({
      name: 'sink.localhost',
      authOptional: true,
      disabledCommands: ['AUTH', 'STARTTLS'],
      logger: false,
      closeTimeout: 200,
      size: 50 * 1024 * 1024,
      onConnect: (_session, callback) => {
        this.connections++;
        const g = this.greeting;
        if (g && g.times > 0) {
          g.times--;
          setTimeout(() => callback(), g.ms);
          return;
        }
        callback();
      },
      onMailFrom: (_address, _session, callback) => {
        const f = this.mailFault;
        if (f && f.times > 0) {
          f.times--;
          return callback(smtpError(f.code, f.message));
        }
        callback();
      },
      onRcptTo: (address, _session, callback) => {
        const to = address.address.toLowerCase();
        this.rcptAttempts.push(to);
        const f = this.rcptFaults.find((x) => x.times > 0 && (x.address === undefined || x.address === to));
        const answer = () => {
          if (f) {
            f.times--;
            return callback(smtpError(f.code, f.message));
          }
          callback();
        };
        const d = this.rcptDelay;
        if (d && d.times > 0) {
          d.times--;
          setTimeout(answer, d.ms);
          return;
        }
        answer();
      },
      onData: (stream, session, callback) => {
        this.dataAttempts++;
        const chunks: Buffer[] = [];
        let dropped = false;
        // Cut as soon as the message starts (the 354 is out), not at its first chunk read: on a busy
        // machine loopback buffers (tcp_rmem up to 32 MB here) can take a whole message, final dot
        // included, before this process reads a byte of it.
        if (this.dropMid > 0) {
          this.dropMid--;
          dropped = true;
          this.socketOf(session)?.destroy();
        }
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('error', () => undefined); // the client went away mid-message: not received
        stream.on('end', () => {
          if (dropped) return;
          void this.finish(Buffer.concat(chunks), session, callback);
        });
      },
    });
    server.on('error', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
  }

  /** Stops listening and cuts every open connection: clients see connection refused/reset. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    for (const c of server.connections) c._socket.destroy();
    await new Promise<void>((resolve) => server.server.close(() => resolve()));
  }

  async stop(): Promise<void> {
    await this.down();
  }

  private async finish(
    raw: Buffer,
    session: SMTPServerSession,
    callback: (err?: Error | null, message?: string) => void,
  ): Promise<void> {
    const df = this.dataFault;
    if (df && df.times > 0) {
      df.times--;
      return callback(smtpError(df.code, df.message));
    }
    this.bytes += raw.length;
    this.messages.push({
      messageId: headerMessageId(raw),
      envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
      envelopeTo: session.envelope.rcptTo.map((r) => r.address),
      raw: this.keepRaw ? raw : Buffer.alloc(0),
      receivedAt: Date.now(),
    });
    for (const w of [...this.waiters]) {
      if (w.check()) {
        this.waiters = this.waiters.filter((x) => x !== w);
        w.resolve();
      }
    }
    if (this.dropAfter > 0) {
      this.dropAfter--;
      this.socketOf(session)?.destroy();
      return;
    }
    const delay = this.replyDelay;
    if (delay && delay.times > 0) {
      delay.times--;
      await sleep(delay.ms);
    } else if (this.dataDelayMs > 0) await sleep(this.dataDelayMs);
    callback(null, 'OK: queued by sink');
  }

  private socketOf(session: SMTPServerSession): net.Socket | undefined {
    for (const c of this.server?.connections ?? []) if (c.session.id === session.id) return c._socket;
    return undefined;
  }
}
