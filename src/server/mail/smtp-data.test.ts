import fc from 'fast-check';
import SMTPConnection from 'nodemailer/lib/smtp-connection';
import DataStream from 'nodemailer/lib/smtp-connection/data-stream';
import { describe, expect, it } from 'vitest';
import { buildMessage } from './message.ts';
import { searchDots, stuffDots, withSearchedData } from './smtp-data.ts';

/** What a DataStream writes for these chunks, and its byte counts. */
async function through(
  chunks: Buffer[],
  searched: boolean,
): Promise<{ out: Buffer; inBytes: number; outBytes: number }> {
  const stream = new DataStream();
  if (searched) searchDots(stream);
  const out: Buffer[] = [];
  stream.on('data', (b: Buffer) => out.push(b));
  const ended = new Promise((resolve) => stream.on('end', resolve));
  for (const c of chunks) stream.write(c);
  stream.end();
  await ended;
  return { out: Buffer.concat(out), inBytes: stream.inByteCount, outBytes: stream.outByteCount };
}

/** Bytes made of what the DATA rules act on: CRLF, bare CR and LF, dots at line starts. */
const bytes = fc
  .array(fc.constantFrom('a', 'word ', '.', '..', '\r\n', '\r\n.', '\r', '\n', '\n.', 'é', '=2E', ' '), {
    maxLength: 60,
  })
  .map((parts) => Buffer.from(parts.join('')));

/** Bytes with CRLF line ends only, as every built message has: the search path's input. */
const crlfBytes = fc
  .array(fc.constantFrom('a', 'word ', '.', '..', '\r\n', '\r\n.', '\r\n..', 'é', '=2E', ' '), {
    maxLength: 60,
  })
  .map((parts) => Buffer.from(parts.join('')));

/** The same bytes cut into chunks at the given places. */
function cut(buffer: Buffer, places: number[]): Buffer[] {
  const at = [...new Set(places.map((p) => p % (buffer.length + 1)))].sort((a, b) => a - b);
  const chunks: Buffer[] = [];
  let from = 0;
  for (const p of at) {
    chunks.push(buffer.subarray(from, p));
    from = p;
  }
  chunks.push(buffer.subarray(from));
  return chunks;
}

describe('the searched DATA pass', () => {
  it('writes what DataStream writes, with the same counts, for any bytes in any chunks', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(bytes, crlfBytes),
        fc.array(fc.nat(), { maxLength: 6 }),
        async (input, places) => {
          const chunks = cut(input, places);
          const searched = await through(chunks, true);
          const stepped = await through(chunks, false);
          expect(searched.out.toString('latin1')).toBe(stepped.out.toString('latin1'));
          expect([searched.inBytes, searched.outBytes]).toEqual([stepped.inBytes, stepped.outBytes]);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('takes the search path for a built message, and stuffs its line-leading dots', async () => {
    const message = await buildMessage({
      from: 'Proofmail <no-reply@proofmail.test>',
      to: ['client@example.com'],
      replyTo: null,
      subject: 'Dots',
      html: '<p>one</p>\n.starts with a dot\n..two',
      text: '.a\n.b',
      messageId: '<a@proofmail.test>',
      date: new Date('2026-03-15T12:00:00Z'),
    });
    const stuffed = stuffDots(message, false);
    expect(stuffed).toBeDefined();
    expect(stuffed!.toString()).toContain('\r\n..a\r\n..b');
    expect((await through([message], true)).out.equals((await through([message], false)).out)).toBe(true);
  });

  it('leaves a chunk with a bare line break to DataStream', () => {
    expect(stuffDots(Buffer.from('a\nb'), false)).toBeUndefined();
    expect(stuffDots(Buffer.from('a\rb'), false)).toBeUndefined();
    expect(stuffDots(Buffer.from('\nb'), 0x61)).toBeUndefined();
    expect(stuffDots(Buffer.from('b'), 0x0d)).toBeUndefined();
    expect(stuffDots(Buffer.from('a\r'), false)).toBeDefined(); // its LF may start the next chunk
  });

  it('finds where nodemailer makes a message’s data stream', () => {
    const connection = new SMTPConnection({ host: '127.0.0.1', port: 2525 });
    expect(withSearchedData(connection)).toBe(true);
  });
});
