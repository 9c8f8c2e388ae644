import net from 'node:net';

/**
 * A fake SpamAssassin spamd on 127.0.0.1 for src/server/checks/spam.ts: it speaks the spamc/spamd
 * protocol (request line `REPORT SPAMC/1.5`, headers, a blank line, exactly Content-length bytes of
 * message; answer `SPAMD/1.1 0 EX_OK`, a `Spam:` header, the report) and answers with reports in
 * SpamAssassin's own layout. A message holding the GTUBE string is spam (1000 points, as real
 * SpamAssassin scores it); one holding `BORDERLINE` scores 3.1 of 5; anything else 0.1. A request
 * whose Content-length does not match its body gets `SPAMD/1.0 76 Bad header line`, as spamd does.
 */

export const GTUBE = 'XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X';

export interface FakeSpamdRequest {
  method: string;
  version: string;
  headers: Record<string, string>;
  body: Buffer;
}

export type FakeSpamdMode = 'normal' | 'silent' | 'error' | 'garbage';

const PREAMBLE = `Spam detection software, running on the system "fake-spamd",
has NOT identified this incoming email as spam.  The original
message has been attached to this so you can view it or label
similar future email.  If you have any questions, see
the administrator of that system for details.

Content preview:  a preview of the message [...]

`;

function report(score: number, threshold: number, rows: [number, string, string][]): string {
  const table = rows
    .map(([pts, name, desc]) => `${pts.toFixed(1).padStart(4)} ${name.padEnd(22)} ${desc}`)
    .join('\n');
  return `${PREAMBLE}Content analysis details:   (${score.toFixed(1)} points, ${threshold.toFixed(1)} required)

 pts rule name              description
---- ---------------------- --------------------------------------------------
${table}

`;
}

function answerFor(body: string): { spam: boolean; score: number; text: string } {
  if (body.includes(GTUBE)) {
    return {
      spam: true,
      score: 1000,
      text: report(1000, 5, [
        [1000, 'GTUBE', 'BODY: Generic Test for Unsolicited Bulk Email'],
        [-0.0, 'NO_RELAYS', 'Informational: message was not relayed via SMTP'],
        [-0.0, 'NO_RECEIVED', 'Informational: message has no Received headers'],
      ]),
    };
  }
  if (body.includes('BORDERLINE')) {
    const rows: [number, string, string][] = [
      [1.6, 'MIME_HTML_ONLY', 'BODY: Message only has text/html MIME parts'],
      [
        1.4,
        'HTML_IMAGE_RATIO_02',
        'BODY: HTML has a low ratio of text to image\n                            area',
      ],
      [0.1, 'HTML_MESSAGE', 'BODY: HTML included in message'],
    ];
    return { spam: false, score: 3.1, text: report(3.1, 5, rows) };
  }
  return {
    spam: false,
    score: 0.1,
    text: report(0.1, 5, [[0.1, 'HTML_MESSAGE', 'BODY: HTML included in message']]),
  };
}

export class FakeSpamd {
  readonly requests: FakeSpamdRequest[] = [];
  mode: FakeSpamdMode = 'normal';
  private readonly sockets = new Set<net.Socket>();

  private constructor(private readonly server: net.Server) {}

  static async start(): Promise<FakeSpamd> {
    // Half-open like spamd: spamc shuts its side down after the message and still reads the answer.
    const server = net.createServer({ allowHalfOpen: true });
    const fake = new FakeSpamd(server);
    server.on('connection', (socket) => fake.handle(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get port(): number {
    return (this.server.address() as net.AddressInfo).port;
  }

  get url(): string {
    return `spamd://127.0.0.1:${this.port}`;
  }

  private handle(socket: net.Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffer = Buffer.alloc(0);
    let done = false;
    const reply = (text: string) => {
      done = true;
      socket.end(text);
    };
    const tryParse = (ended: boolean) => {
      if (done) return;
      const headerEnd = buffer.indexOf('\r\n\r\n');
      if (headerEnd === -1) return ended ? reply('SPAMD/1.0 76 Bad header line\r\n\r\n') : undefined;
      const [requestLine = '', ...lines] = buffer.subarray(0, headerEnd).toString('latin1').split('\r\n');
      const [method = '', version = ''] = requestLine.split(' ');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
      }
      const length = Number(headers['content-length']);
      const body = buffer.subarray(headerEnd + 4);
      if (!ended && (!Number.isFinite(length) || body.length < length)) return;
      if (!/^SPAMC\/1\.\d$/.test(version) || body.length !== length) {
        return reply('SPAMD/1.0 76 Bad header line\r\n\r\n');
      }
      this.requests.push({ method, version, headers, body });
      if (this.mode === 'silent') return;
      if (this.mode === 'error') return reply('SPAMD/1.0 74 Input/output error\r\n\r\n');
      if (this.mode === 'garbage') return reply('HTTP/1.1 200 OK\r\n\r\nhello');
      const { spam, score, text } = answerFor(body.toString('utf8'));
      const payload = Buffer.from(text, 'utf8');
      const verdict = `${spam ? 'True' : 'False'} ; ${score.toFixed(1)} / 5.0`;
      if (method === 'SYMBOLS') {
        const names = [...text.matchAll(/^\s*-?\d+\.\d\s+([A-Z0-9_]+)/gm)].map((m) => m[1]).join(',');
        return reply(
          `SPAMD/1.1 0 EX_OK\r\nContent-length: ${names.length}\r\nSpam: ${verdict}\r\n\r\n${names}`,
        );
      }
      if (method !== 'REPORT') return reply('SPAMD/1.0 76 Bad header line\r\n\r\n');
      reply(`SPAMD/1.1 0 EX_OK\r\nContent-length: ${payload.length}\r\nSpam: ${verdict}\r\n\r\n${text}`);
    };
    socket.on('data', (chunk: Buffer) => {
      buffer = Buffer.concat([buffer, chunk]);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
