import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import mjml2html from 'mjml';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MJML_OPTIONS, mjmlTags } from './mjml.ts';
import { prepare, type PrepareInput } from './prepare.ts';
import { refusal, testEnvelope } from './prepare-test-support.ts';

const envelope = testEnvelope;
const run = (input: Partial<PrepareInput> & { html: string }) =>
  prepare({ subject: 'x', inlineCss: false, text: null, format: 'mjml', ...input }, envelope);

const MJML = `<mjml>
  <mj-head>
    <mj-attributes><mj-text font-family="Helvetica, Arial" color="#333333" /></mj-attributes>
    <mj-style>.note { color: #777777 }</mj-style>
  </mj-head>
  <mj-body width="600px">
    <mj-section background-color="#f4f4f5">
      <mj-column width="50%"><mj-text css-class="note">Left &amp; first</mj-text></mj-column>
      <mj-column width="50%"><mj-button href="https://example.com/go">Go</mj-button></mj-column>
    </mj-section>
  </mj-body>
</mjml>`;

describe('MJML in the one door', () => {
  it('compiles to exactly what the mjml package gives for the same input and options', async () => {
    const prepared = await run({ html: MJML });
    const expected = (await mjml2html(MJML, MJML_OPTIONS)).html;
    expect(prepared.html).toBe(expected);
    expect(prepared.html).toMatch(/^<!doctype html>/i);
    expect(prepared.html).toContain('Left &amp; first');
    expect(prepared.bytes.source).toBe(Buffer.byteLength(MJML));
    expect(prepared.text).toContain('Left & first');
  });

  it('compiles a source to the same bytes every time, though MJML draws its navbar and carousel ids at random', async () => {
    const source = (title: string) => `<mjml><mj-body><mj-section><mj-column>
      <mj-text>${title}</mj-text>
      <mj-navbar hamburger="hamburger"><mj-navbar-link href="https://example.com/a">A</mj-navbar-link></mj-navbar>
      <mj-carousel><mj-carousel-image src="https://example.com/1.jpg" /><mj-carousel-image src="https://example.com/2.jpg" /></mj-carousel>
    </mj-column></mj-section></mj-body></mjml>`;
    const random = Math.random;
    const first = (await run({ html: source('One') })).html;
    expect((await run({ html: source('One') })).html).toBe(first);
    expect(Math.random).toBe(random);
    const navbarId = /id="([0-9a-f]{16})" class="mj-menu-checkbox/.exec(first)?.[1];
    const carouselId = /mj-carousel-([0-9a-f]{16})-radio/.exec(first)?.[1];
    expect(navbarId).toBeDefined();
    expect(carouselId).toBeDefined();
    expect(carouselId).not.toBe(navbarId);
    // The package itself draws new ids each time: what the seeding is for.
    expect((await mjml2html(source('One'), MJML_OPTIONS)).html).not.toBe(first);
    // Compiles at once keep to their own sources.
    const two = (await run({ html: source('Two') })).html;
    expect(two).not.toContain(navbarId);
    const together = await Promise.all([run({ html: source('Two') }), run({ html: source('One') })]);
    expect(together.map((p) => p.html)).toEqual([two, first]);
  });

  it('fills merge tags first, so tags may stand in attributes and loops may repeat sections', async () => {
    const source = `<mjml><mj-body>
{% for story in stories %}<mj-section><mj-column>
  <mj-text color="{{ brand }}">{{ story.title }}</mj-text>
  <mj-button href="{{ story.url }}">Read</mj-button>
</mj-column></mj-section>{% endfor %}
<mj-section><mj-column><mj-text>{{ footer }}</mj-text></mj-column></mj-section>
</mj-body></mjml>`;
    const data = {
      brand: '#0055ff',
      stories: [
        { title: 'One & two', url: 'https://example.com/1' },
        { title: 'Three', url: 'https://example.com/3' },
      ],
    };
    const prepared = await run({ html: source, template: { syntax: 'liquid', data } });
    const filled = source
      .replace(/\{% for story in stories %\}([\s\S]*?)\{% endfor %\}/, (_, body: string) =>
        data.stories
          .map((s) =>
            body
              .replace('{{ brand }}', data.brand)
              .replace('{{ story.title }}', s.title.replace('&', '&amp;'))
              .replace('{{ story.url }}', s.url),
          )
          .join(''),
      )
      .replace('{{ footer }}', '');
    expect(prepared.html).toBe((await mjml2html(filled, MJML_OPTIONS)).html);
    expect(prepared.html.match(/color:#0055ff/g)?.length).toBe(2);
    expect(prepared.notes.unfilled).toEqual(['footer']);
  });

  it('inlines after compiling when asked', async () => {
    const source = MJML.replace('<mj-style>', '<mj-style>')
      .replace('.note { color: #777777 }', 'p.x { color: #ff0000 }')
      .replace('Left &amp; first', '<p class="x">Left</p>');
    const prepared = await run({ html: source, inlineCss: true });
    // MJML's own `p { display: block; margin: 13px 0 }` comes first, then the user's rule.
    expect(prepared.html).toMatch(/<p class="x" style="[^"]*color: #ff0000;?">Left<\/p>/);
    expect(prepared.notes.inlined).toBe(true);
  });

  it('answers invalid MJML (strict validation) with each problem at its line', async () => {
    const err = await refusal(
      run({
        html: '<mjml>\n<mj-body>\n<mj-section>\n<mj-column>\n<mj-text colour="red">x</mj-text>\n</mj-column>\n</mj-section>\n</mj-body>\n</mjml>',
      }),
    );
    expect(err.code).toBe('mjml_invalid');
    expect(err.message).toBe('This MJML is not valid: line 5: Attribute colour is illegal');
    expect(err.problems).toEqual([{ line: 5, message: 'Attribute colour is illegal' }]);
  });

  it('names the line as written when merge tags add lines before the problem', async () => {
    const source = [
      '<mjml>',
      '  <mj-body>',
      '    {{#each items}}',
      '    <mj-section><mj-column>',
      '      <mj-text>{{name}}</mj-text>',
      '    </mj-column></mj-section>',
      '    {{/each}}',
      '    <mj-section><mj-column>',
      '      <mj-text colour="red">Footer</mj-text>',
      '      <mj-text padding="{{pad}}">Note</mj-text>',
      '    </mj-column></mj-section>',
      '  </mj-body>',
      '</mjml>',
    ].join('\n');
    const data = { items: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], pad: 'lots' };
    const err = await refusal(run({ html: source, template: { syntax: 'handlebars', data } }));
    expect(err.code).toBe('mjml_invalid');
    // Three rounds of the loop put "colour" on line 13 of what MJML read; the editor has it on line 9.
    expect(err.problems?.[0]).toEqual({ line: 9, message: 'Attribute colour is illegal' });
    // A line the filling wrote is not in the source: its number says how it was counted.
    expect(err.problems?.[1]?.message).toMatch(
      /^Attribute padding has invalid value: lots .*\(line 14 of the MJML once its merge tags are filled\)$/,
    );
    expect(err.message).toMatch(/^This MJML is not valid: line 9: Attribute colour is illegal; line 14: /);
  });

  it('refuses <mj-include> with its line instead of reading a file', async () => {
    const err = await refusal(
      run({ html: '<mjml>\n<mj-body>\n  <mj-include path="/etc/passwd" />\n</mj-body>\n</mjml>' }),
    );
    expect(err.code).toBe('mjml_invalid');
    expect(err.problems).toEqual([
      {
        line: 3,
        message:
          '<mj-include> is not available: there are no files to include. Paste the included MJML in its place.',
      },
    ]);
  });

  it('refuses an ending tag left open, at its line, where MJML would send the tags inside it unrendered', async () => {
    // An <mj-text> left open on line 6, an <mj-button> on line 7 (an outside audit's example).
    const source = [
      '<mjml>',
      '  <mj-body>',
      '    <mj-section>',
      '      <mj-column>',
      '        <mj-text>Paragraph one</mj-text>',
      '        <mj-text>Paragraph two, missing its closing tag',
      '        <mj-button href="https://example.com/buy">Buy now</mj-button>',
      '        <mj-text>Paragraph three</mj-text>',
      '      </mj-column>',
      '    </mj-section>',
      '    <mj-section>',
      '      <mj-column>',
      '        <mj-text>Footer text</mj-text>',
      '      </mj-column>',
      '    </mj-section>',
      '  </mj-body>',
      '</mjml>',
    ].join('\n');
    // The mjml package compiles it without a word, and sends the button as a raw <mj-button>.
    expect((await mjml2html(source, MJML_OPTIONS)).html).toMatch(/<mj-button href/);
    const err = await refusal(run({ html: source }));
    expect(err.code).toBe('mjml_invalid');
    expect(err.problems).toEqual([
      {
        line: 6,
        message:
          '<mj-text> is not closed before <mj-button> on line 7: MJML reads everything up to the next </mj-text> as HTML, so the MJML tags in it would be sent unrendered. Close it with </mj-text>.',
      },
    ]);
    // Cut short inside an <mj-text>: MJML sends an empty block, without a word.
    const cut =
      '<mjml>\n<mj-body>\n<mj-section>\n<mj-column>\n<mj-text>Your order has shipped. Track it at your account page.';
    expect((await mjml2html(cut, MJML_OPTIONS)).html).not.toContain('Your order has shipped');
    const cutShort = await refusal(run({ html: cut }));
    expect(cutShort.code).toBe('mjml_invalid');
    expect(cutShort.problems).toEqual([
      {
        line: 5,
        message:
          '<mj-text> is never closed: MJML drops what follows it, so its content would be sent as an empty block. Close it with </mj-text>.',
      },
    ]);
    // 20,000 tags that never end (no `>` after them) are read in one pass: what comes first is found.
    const endless = await refusal(run({ html: `${source}${'<mj-a x'.repeat(20_000)}` }));
    expect(endless.problems?.[0]?.line).toBe(6);
    // Closed, self-closing (as in <mj-attributes>) or commented out, the same tags compile.
    await run({ html: source.replace('its closing tag', 'its closing tag</mj-text>') });
    await run({ html: MJML });
    await run({
      html: '<mjml><mj-body><mj-section><mj-column><!-- <mj-text>old <mj-include path="x" /> -->\n<mj-text>new</mj-text></mj-column></mj-section></mj-body></mjml>',
    });
  });

  it('says what MJML is when the source is not MJML', async () => {
    const err = await refusal(run({ html: '<p>Plain HTML</p>' }));
    expect(err.code).toBe('mjml_invalid');
    expect(err.message).toBe(
      'This MJML could not be compiled: line 1: An MJML document starts with <mjml> and holds an <mj-body>; for plain HTML, switch the source format to HTML.',
    );
  });

  describe('sandbox', () => {
    afterEach(() => vi.restoreAllMocks());

    it('reads no file and opens no connection while compiling (fonts only become <link> tags)', async () => {
      await run({ html: MJML }); // modules loaded before watching
      const spies = [
        vi.spyOn(fs, 'readFileSync'),
        vi.spyOn(fs, 'readFile'),
        vi.spyOn(fs, 'openSync'),
        vi.spyOn(fs, 'existsSync'),
        vi.spyOn(fs, 'lstatSync'),
        vi.spyOn(fs, 'statSync'),
        vi.spyOn(fs, 'realpathSync'),
        vi.spyOn(net, 'connect'),
        vi.spyOn(http, 'request'),
        vi.spyOn(https, 'request'),
        vi.spyOn(http, 'get'),
        vi.spyOn(https, 'get'),
      ];
      const withFont = MJML.replace(
        '<mj-attributes>',
        '<mj-font name="Brand" href="https://fonts.example.com/brand.css" /><mj-attributes>',
      ).replace('Helvetica, Arial', 'Brand, Roboto, Arial');
      const prepared = await run({ html: withFont });
      expect(prepared.html).toContain(
        '<link href="https://fonts.example.com/brand.css" rel="stylesheet" type="text/css">',
      );
      await refusal(run({ html: '<mjml><mj-body><mj-include path="./x.mjml" /></mj-body></mjml>' }));
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    });
  });
});

describe('reading MJML tags', () => {
  it('reads what the former regular expression read, in one pass however the quotes fall', () => {
    const former = (source: string) =>
      [...source.matchAll(/<(\/?)(mj-[a-z-]+)\b(?:[^>"']|"[^"]*"|'[^']*')*?(\/?)>/gi)].map((m) => ({
        index: m.index,
        closing: m[1] === '/',
        name: m[2]!.toLowerCase(),
        selfClosing: m[3] === '/',
      }));
    const pieces = [
      '<mj-text',
      '</mj-text',
      '<MJ-Button',
      '<mj-a-',
      '>',
      '/>',
      '/',
      '"',
      "'",
      ' ',
      'x',
      '=',
      '<mj-text1',
    ];
    let seed = 5;
    for (let n = 0; n < 5_000; n++) {
      let source = '';
      for (let i = 0; i < 12; i++) {
        seed = (seed * 48271) % 2147483647;
        source += pieces[seed % pieces.length];
      }
      expect([...mjmlTags(source)], JSON.stringify(source)).toEqual(former(source));
    }
    // 20,000 tags whose quotes pair up to a quote never closed: 3.5 s for the former expression.
    expect([...mjmlTags(`${'<mj-a "'.repeat(20_000)}'>`)]).toEqual([]);
  });
});
