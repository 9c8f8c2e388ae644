import fc from 'fast-check';
import { Readable } from 'node:stream';
import MailComposer from 'nodemailer/lib/mail-composer';
import { describe, expect, it } from 'vitest';
import { assembleMessage } from './mime-assembly.ts';
import { composerOptions, streamed, type ComposerOptions, type MessageInput } from './message.ts';

const base: MessageInput = {
  from: 'Proofmail <no-reply@proofmail.test>',
  to: ['client@example.com'],
  replyTo: 'designer@studio.example',
  subject: 'Spring news',
  html: '<p>Hello</p>',
  text: 'Hello',
  messageId: '<0b7c1f1e-3f4a-4e0e-9a57-8f1d3c9b2a10@proofmail.test>',
  date: new Date('2026-03-15T12:00:00Z'),
};

/** A part as text, its transfer encoding still the one message.ts chose. */
function asText(part: ComposerOptions['text']): ComposerOptions['text'] {
  if (part && typeof part === 'object' && 'content' in part && Buffer.isBuffer(part.content))
    return { ...part, content: part.content.toString('utf8') };
  return part;
}

/**
 * Our build of `input` (the parts' encodings chosen by message.ts, handed over as bytes, assembled
 * here) against nodemailer's streamed build of the same choices with the parts as text.
 */
async function expectSame(input: MessageInput): Promise<void> {
  const options = composerOptions(input);
  const ours = assembleMessage(new MailComposer(options).compile());
  const theirs = await streamed(
    new MailComposer({ ...options, text: asText(options.text), html: asText(options.html) }).compile(),
  );
  expect(ours).toBeDefined();
  // As text first, so a difference shows where it is.
  expect(ours!.toString('latin1')).toBe(theirs.toString('latin1'));
  expect(ours!.equals(theirs)).toBe(true);
}

/** Text made of what changes a MIME encoding: line breaks, dots, blanks at line ends, non-ASCII. */
const tricky = fc.string({
  unit: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('a', 'Z', '0', ' ', 'word ', '<p>', '=', '.', '\t') },
    { weight: 2, arbitrary: fc.constantFrom('\n', '\r\n', '\r', '\n.', ' \n', '\t\r\n', '\n\n\n') },
    {
      weight: 1,
      arbitrary: fc.constantFrom('é', 'ü', '—', '✓', '🎉', 'こんにちは', '\u00a0', '&zwnj;\u00a0'),
    },
    { weight: 1, arbitrary: fc.constantFrom('x'.repeat(80), 'y '.repeat(60), '=3D'.repeat(30), '\u0001') },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
  ),
  maxLength: 400,
});

describe('assembleMessage', () => {
  it('gives the bytes of nodemailer’s streamed build for any content, subject and names', async () => {
    await fc.assert(
      fc.asyncProperty(
        tricky,
        tricky,
        fc.oneof(tricky, fc.string({ unit: 'binary', maxLength: 120 })),
        fc.constantFrom(
          'Proofmail <no-reply@proofmail.test>',
          'no-reply@proofmail.test',
          'Ünïcode Tëam <a@b.test>',
        ),
        fc.constantFrom(null, 'designer@studio.example'),
        async (html, text, subject, from, replyTo) => {
          await expectSame({ ...base, html, text, subject, from, replyTo });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('chooses the transfer encodings nodemailer would, for a message of two parts', async () => {
    await fc.assert(
      fc.asyncProperty(tricky, tricky, async (html, text) => {
        fc.pre(html !== '' && text !== '');
        const input = { ...base, html, text };
        const ours = assembleMessage(new MailComposer(composerOptions(input)).compile());
        const theirs = await streamed(new MailComposer({ ...composerOptions(input), html, text }).compile());
        expect(ours?.equals(theirs)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it.each([
    ['an empty text part', { text: '' }],
    ['an empty HTML part', { html: '' }],
    ['both parts empty', { html: '', text: '' }],
    [
      'a 200 KB HTML part in long lines (past the encoder’s 64 KiB slices)',
      { html: `<p>${'Grüße '.repeat(35_000)}</p>` },
    ],
    [
      'a 140 KiB ASCII text in short lines (nodemailer assumes long lines past 128 KiB)',
      { text: 'short line\n'.repeat(13_000) },
    ],
    ['a mostly-CJK text (base64)', { text: 'こんにちは世界。'.repeat(400) }],
    ['blanks before the end of a 64 KiB slice', { html: `${'a'.repeat(65_535)}   \n${'b'.repeat(10)}` }],
  ] as [string, Partial<MessageInput>][])('gives nodemailer’s bytes for %s', async (_name, change) => {
    await expectSame({ ...base, ...change });
  });

  it('declines a tree it does not handle, which is then streamed', async () => {
    const options = {
      ...composerOptions(base),
      attachments: [{ filename: 'a.txt', content: Readable.from([Buffer.from('streamed')]) }],
    };
    expect(assembleMessage(new MailComposer(options).compile())).toBeUndefined();
  });
});
