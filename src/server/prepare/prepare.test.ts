import { describe, expect, it } from 'vitest';
import { prepare } from './prepare.ts';
import { refusal, testEnvelope } from './prepare-test-support.ts';

const envelope = testEnvelope;

describe('merge tags in the subject', () => {
  const html = '<p>Hello {{name}}</p>';
  const base = { html, format: 'html' as const, inlineCss: false, text: null };

  it('are filled with the same data, not HTML-escaped, on one line; unfilled names join the source’s', async () => {
    const prepared = await prepare(
      {
        ...base,
        subject: 'Receipt for {{name}}\r\n{{missing}} {{name}}',
        template: { syntax: 'handlebars', data: { name: 'Ada & Co' } },
      },
      envelope,
    );
    expect(prepared.subject).toBe('Receipt for Ada & Co  Ada & Co');
    expect(prepared.html).toBe('<p>Hello Ada &amp; Co</p>');
    expect(prepared.notes.unfilled).toEqual(['missing']);
    expect(prepared.headers.find((h) => h.name.toLowerCase() === 'subject')?.value).toBe(prepared.subject);
  });

  it('a subject the engine cannot read is a 422 that names the subject, without a line of the source', async () => {
    const err = await refusal(
      prepare({ ...base, subject: 'Hi {{#if}}', template: { syntax: 'handlebars', data: {} } }, envelope),
    );
    expect(err.code).toBe('template_invalid');
    expect(err.message).toMatch(/^In the subject: /);
    expect(err.problems).toBeUndefined();
  });
});
