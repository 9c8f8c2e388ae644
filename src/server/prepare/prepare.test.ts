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

  it('a subject longer than 998 characters once filled is a 422 that says so, in every syntax', async () => {
    const long = { name: 'x'.repeat(996) };
    for (const [syntax, subject] of [
      ['handlebars', 'Hi {{name}}'],
      ['liquid', 'Hi {{ name }}'],
      ['mailchimp', 'Hi *|name|*'],
    ] as const) {
      const err = await refusal(prepare({ ...base, subject, template: { syntax, data: long } }, envelope));
      expect(err.code).toBe('subject_too_long');
      expect(err.message).toBe(
        'The subject is longer than 998 characters once its merge tags are filled (999 characters). Shorten the values it fills in.',
      );
    }
    // 998 is the limit, not over it.
    const at = await prepare(
      { ...base, subject: 'Hi{{name}}', template: { syntax: 'handlebars', data: long } },
      envelope,
    );
    expect(at.subject).toHaveLength(998);
    // A loop counts as what it makes; values that pass even the HTML's limit are stopped as they fill.
    const loop = await refusal(
      prepare(
        {
          ...base,
          subject: '{{#each rows}}Row {{@index}}, {{/each}}',
          template: { syntax: 'handlebars', data: { rows: Array.from({ length: 200 }, () => 0) } },
        },
        envelope,
      ),
    );
    expect(loop.message).toMatch(/filled \(1689 characters\)/);
    const far = await refusal(
      prepare(
        {
          ...base,
          subject: '*|A|*'.repeat(100),
          template: { syntax: 'mailchimp', data: { A: 'x'.repeat(20_000) } },
        },
        envelope,
      ),
    );
    expect(far.code).toBe('subject_too_long');
    expect(far.message).toMatch(/filled \(far more\)/);
  });
});

describe('a step that makes the HTML larger than a source may be', () => {
  const base = { subject: 'x', format: 'html' as const, inlineCss: false, text: null };

  it('is refused after filling the merge tags, before any other work', async () => {
    const err = await refusal(
      prepareHtml({
        ...base,
        html: `{{#each rows}}<p>${'x'.repeat(1000)}</p>{{/each}}`,
        template: { syntax: 'handlebars', data: { rows: Array.from({ length: 1100 }, () => 0) } },
      }),
    );
    expect(err.code).toBe('html_too_large');
    expect(err.message).toBe(
      'HTML content is too large once its merge tags are filled: the limit is 1 MB. Check the merge tags for a loop that repeats too much.',
    );
    // 1,000 rows (1 MB less the tags' room) pass.
    const fine = await prepareHtml({
      ...base,
      html: `{{#each rows}}<p>${'x'.repeat(1000)}</p>{{/each}}`,
      template: { syntax: 'handlebars', data: { rows: Array.from({ length: 1000 }, () => 0) } },
    });
    expect(fine.html.length).toBe(1_007_000);
  });

  it('is refused after compiling MJML, which writes about 25 times its source', async () => {
    const section = '<mj-section><mj-column><mj-text>x</mj-text></mj-column></mj-section>';
    const html = `<mjml><mj-body>${section.repeat(600)}</mj-body></mjml>`;
    expect(html.length).toBeLessThan(50_000);
    const err = await refusal(prepareHtml({ ...base, html, format: 'mjml' }));
    expect(err.code).toBe('html_too_large');
    expect(err.message).toBe(
      'HTML content is too large once its MJML is compiled: the limit is 1 MB. Make the MJML smaller.',
    );
  });

  it('is refused after inlining, counted in UTF-8 bytes', async () => {
    // 16,000 paragraphs of 60 bytes each get a style attribute of about 40 more.
    const html = `<style>.a { color: #ff0000; font-family: Arial }</style>${'<p class="a">Grüße aus Zürich, ein Absatz.</p>\n'.repeat(16_000)}`;
    expect(Buffer.byteLength(html)).toBeLessThan(1024 * 1024);
    const err = await refusal(prepareHtml({ ...base, html, inlineCss: true }));
    expect(err.code).toBe('html_too_large');
    expect(err.message).toBe(
      'HTML content is too large once its CSS is inlined: the limit is 1 MB. Send it without Inline CSS, or make it smaller.',
    );
    expect((await prepareHtml({ ...base, html })).html).toBe(html);
  });
});

describe('the generated text part', () => {
  it('is generated from the HTML before inlining: the same with Inline CSS on or off', async () => {
    // Inlining writes styles and width attributes and re-serialises the document (html5ever moves
    // the stray text out of the table, as browsers do); the words of the text part stay as written.
    const html =
      '<style>.teaser { color: #999 } td { color: #333 }</style>' +
      '<table width="600"><tr><td class="teaser">Preheader&zwnj;&nbsp;&zwnj;&nbsp;</td></tr>Stray' +
      '<tr><td><p>Hello <a href="https://example.com/a">there</a></p></td></tr></table>';
    const input = { html, subject: 'S', text: null };
    const on = await prepare({ ...input, inlineCss: true }, envelope);
    const off = await prepare({ ...input, inlineCss: false }, envelope);
    expect(on.html).not.toBe(off.html);
    expect(on.html).toMatch(/Stray<table/);
    expect(on.text).toBe(off.text);
    expect(on.text).toBe('Preheader\nStray\n\nHello there [https://example.com/a]');
  });

  it('leaves out what a <style> rule hides, with Inline CSS on or off, the preheader kept', async () => {
    const html =
      '<style>.preheader { display: none !important } .mobile-only { display:none; color: red }' +
      ' @media (max-width: 600px) { .mobile-only { display: block !important } .desktop { display: none } }' +
      '</style><span class="preheader">Teaser</span><div class="mobile-only">MOBILE COPY</div>' +
      '<div class="desktop">Desktop copy</div><p>Hello</p>';
    for (const inlineCss of [true, false]) {
      const prepared = await prepare({ html, subject: 'S', text: null, inlineCss }, envelope);
      expect(prepared.text).toBe('Teaser\n\nDesktop copy\n\nHello');
      // Without Inline CSS the HTML is sent as written: only the text part read it inlined.
      if (!inlineCss) expect(prepared.html).toBe(html);
    }
    // A rule that only a client's own markup matches, or one in a block kept as written, hides
    // nothing the text part reads.
    for (const kept of [
      '<style data-embed>.mobile-only { display: none }</style>',
      '<style>.mobile-only:hover { display: none } * { display: none }</style>',
    ]) {
      const prepared = await prepare(
        { html: `${kept}<div class="mobile-only">Shown</div>`, subject: 'S', text: null, inlineCss: false },
        envelope,
      );
      expect(prepared.text).toBe('Shown');
    }
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
