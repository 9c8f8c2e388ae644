import { describe, expect, it } from 'vitest';
import { prepare, prepareHtml } from './prepare.ts';
import { refusal, testEnvelope } from './prepare-test-support.ts';
import { MAX_DOCUMENT_DEPTH } from './document-depth.ts';

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

describe('the generated text part', () => {
  it('is generated from the HTML before inlining: the same with Inline CSS on or off', async () => {
    // Inlining writes styles and width attributes and re-serialises the document (html5ever moves
    // the stray text out of the table, as browsers do); the words of the text part stay as written.
    const html =
      '<style>.hide { display: none } td { color: #333 }</style>' +
      '<table width="600">Stray<tr><td class="hide">Preheader&zwnj;&nbsp;&zwnj;&nbsp;</td></tr>' +
      '<tr><td><p>Hello <a href="https://example.com/a">there</a></p></td></tr></table>';
    const input = { html, subject: 'S', text: null };
    const on = await prepare({ ...input, inlineCss: true }, envelope);
    const off = await prepare({ ...input, inlineCss: false }, envelope);
    expect(on.html).not.toBe(off.html);
    expect(on.html).toMatch(/Stray<table/);
    expect(on.text).toBe(off.text);
    expect(on.text).toBe('StrayPreheader\n\nHello there [https://example.com/a]');
  });

  it('takes the text generated beside the inlining, and generates it in line when that fails', async () => {
    const input = { html: '<p>Hello</p>', subject: 'S', inlineCss: true, text: null };
    const given: string[] = [];
    const beside = (part: string) => {
      given.push(part);
      return Promise.resolve('from beside');
    };
    expect((await prepareHtml(input, beside)).text).toBe('from beside');
    expect(given).toEqual(['<p>Hello</p>']);
    const failing = () => Promise.reject(new Error('stopped'));
    expect((await prepareHtml(input, failing)).text).toBe('Hello');
    // The user's own text part is never generated.
    expect((await prepareHtml({ ...input, text: 'Mine' }, beside)).text).toBe('Mine');
    expect(given).toHaveLength(1);
  });
});

describe('the depth limit', () => {
  it('names a document too deep to count to the end as too many levels deep', async () => {
    const html = Array.from({ length: 50_000 }, (_, n) => `<p><b id=${n}>x</p>`).join('');
    const err = await refusal(prepare({ html, subject: 'S', inlineCss: true, text: null }, envelope));
    expect(err.code).toBe('document_too_deep');
    expect(err.message).toMatch(
      new RegExp(`^This HTML nests elements too many levels deep; the limit is ${MAX_DOCUMENT_DEPTH}`),
    );
  });
});
