import { simpleParser } from 'mailparser';
import { describe, expect, it } from 'vitest';
import {
  buildMessage,
  compose,
  composerOptions,
  headersOf,
  sharedHeadersOf,
  transferEncodingOf,
  type MessageInput,
} from './message.ts';

const input: MessageInput = {
  from: 'Proofmail <no-reply@proofmail.test>',
  to: ['client@example.com'],
  replyTo: 'designer@studio.example',
  subject: 'Grüße — proof 3 ✓',
  html: '<p>Hello\nworld ✓</p>\n<p>.starts with a dot</p>',
  text: 'Hello\nworld ✓',
  messageId: '<0b7c1f1e-3f4a-4e0e-9a57-8f1d3c9b2a10@proofmail.test>',
  date: new Date('2026-03-15T12:00:00Z'),
};

describe('buildMessage', () => {
  it('builds the same bytes for the same input, with CRLF line ends only', async () => {
    const a = await buildMessage(input);
    const b = await buildMessage({ ...input });
    expect(a.equals(b)).toBe(true);
    expect(/[^\r]\n/.test(a.toString('latin1'))).toBe(false);
  });

  it('derives the boundary from the content', async () => {
    const a = (await buildMessage(input)).toString();
    const b = (await buildMessage({ ...input, html: '<p>other</p>' })).toString();
    const boundary = (s: string) => /boundary="([^"]+)"/.exec(s)?.[1];
    expect(boundary(a)).not.toBe(boundary(b));
    expect(boundary(a)).toBe(boundary((await buildMessage({ ...input, to: ['x@example.org'] })).toString()));
  });

  it('decodes to the parts, headers and addresses it was given', async () => {
    const parsed = await simpleParser(await buildMessage(input));
    expect(parsed.subject).toBe(input.subject);
    expect(parsed.messageId).toBe(input.messageId);
    expect(parsed.date?.toISOString()).toBe('2026-03-15T12:00:00.000Z');
    const lf = (s: string | false | undefined) => (typeof s === 'string' ? s.replace(/\r\n/g, '\n') : s);
    expect(lf(parsed.html)).toBe(input.html);
    expect(lf(parsed.text)).toBe(input.text);
    expect(parsed.from?.value[0]).toMatchObject({ name: 'Proofmail', address: 'no-reply@proofmail.test' });
    expect(parsed.replyTo?.text).toBe('designer@studio.example');
  });

  it('sends a subject that reads like an encoded word, or cannot be folded, encoded, so it arrives as written', async () => {
    for (const subject of [
      'Use =?UTF-8?B?SGk=?= in headers',
      '=?utf-8?q?not_really?= and =?',
      'Grüße =?iso-8859-1?q?caf=E9?= ✓',
      `${'long '.repeat(20)}=?utf-8?q?${'y'.repeat(80)}?= end`,
    ]) {
      const raw = await buildMessage({ ...input, subject });
      expect((await simpleParser(raw)).subject, subject).toBe(subject);
      expect(raw.toString('latin1')).not.toMatch(/\r\n\s*=\?utf-8\?q\?|=\?UTF-8\?B\?SGk/);
    }
    // One word of the longest subject taken: no line over RFC 5322's 998 characters.
    const word = 'x'.repeat(998);
    const long = await buildMessage({ ...input, subject: word });
    expect((await simpleParser(long)).subject).toBe(word);
    expect(
      Math.max(
        ...long
          .toString('latin1')
          .split('\r\n')
          .map((l) => l.length),
      ),
    ).toBeLessThanOrEqual(998);
    // Anything else is nodemailer's as before: plain ASCII as it is, a lone "=?" too.
    const plain = (await buildMessage({ ...input, subject: 'Is 2+2 =? 4' })).toString('latin1');
    expect(plain).toContain('\r\nSubject: Is 2+2 =? 4\r\n');
  });

  it('differs between recipients only in To, Message-ID and Date, and only by their lengths', async () => {
    const one = await buildMessage(input);
    const two = await buildMessage({
      ...input,
      to: ['someone.else@example.org'],
      messageId: '<9a9a9a9a-1111-4222-8333-444455556666@proofmail.test>',
      date: new Date('2027-11-02T08:30:00Z'),
    });
    expect(two.length - one.length).toBe('someone.else@example.org'.length - 'client@example.com'.length);
    expect(sharedHeadersOf(two)).toEqual(sharedHeadersOf(one));
    expect(headersOf(one).map((h) => h.name)).toEqual([
      'From',
      'To',
      'Reply-To',
      'Subject',
      'Message-ID',
      'Date',
      'MIME-Version',
      'Content-Type',
    ]);
  });
});

describe('transferEncodingOf', () => {
  const long = 'word '.repeat(40);
  const texts: [string, string][] = [
    ['empty', ''],
    ['short ASCII lines', 'Hello\nworld'],
    ['an ASCII line over 76', long],
    ['ASCII without letters, long', '1234 '.repeat(40)],
    ['ASCII under 128 KiB in short lines', 'short line\n'.repeat(11_000)],
    ['ASCII over 128 KiB in short lines', 'short line\n'.repeat(12_000)],
    ['a little Latin-1', `Grüße aus Zürich\n${long}`],
    ['mostly Cyrillic', 'Привет, как дела? '.repeat(20)],
    ['mostly CJK', 'こんにちは世界。'.repeat(30)],
    ['emoji (surrogate pairs) and letters', '✓ 🎉🎉🎉 ok'],
    ['more emoji than letters', '🎉🎉🎉 ok'],
    ['control characters', 'a\u0001\u0002\u0003b'],
    ['tabs, CR and LF only', '\t\r\n'],
    ['ASCII lines of exactly 76', `${'x'.repeat(76)}\n${'y'.repeat(76)}`],
    ['ASCII lines of 77 and 76 apart at a bare CR', `${'x'.repeat(76)}\r${'y'.repeat(77)}`],
    ['ASCII lines of 76 apart at bare CRs', `${'x'.repeat(76)}\r${'y'.repeat(76)}\r`],
    ['a non-breaking preheader run', `Preview${'&zwnj;\u00a0'.repeat(60)}`],
  ];

  it.each(texts)('chooses what nodemailer chooses: %s', async (_name, content) => {
    const message = { ...input, html: `<p>${content}</p>`, text: content };
    const options = composerOptions(message);
    // nodemailer's own choice: the parts as plain strings.
    const theirs = await compose({ ...options, text: message.text, html: message.html });
    expect((await buildMessage(message)).equals(theirs)).toBe(true);
  });

  it('says 7bit, quoted-printable or base64 as the content asks', () => {
    expect(transferEncodingOf('Hello')).toBeUndefined();
    expect(transferEncodingOf(long)).toBe('quoted-printable');
    expect(transferEncodingOf(`${'x'.repeat(76)}\r${'y'.repeat(76)}\n`)).toBeUndefined();
    expect(transferEncodingOf(`${'x'.repeat(76)}\r${'y'.repeat(77)}\n`)).toBe('quoted-printable');
    expect(transferEncodingOf('Grüße')).toBe('quoted-printable');
    expect(transferEncodingOf('こんにちは')).toBe('base64');
  });
});
