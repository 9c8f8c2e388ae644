import { describe, expect, it } from 'vitest';
import { inlineCss } from './inline-css.ts';

/** Our own fixtures, one per failure class the inliner study found (docs/decisions/0051-css-inliner.md). */

const styleBlocks = (html: string) =>
  [...html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style>/gi)].map((m) => m[1]!);

describe('inlineCss', () => {
  it('leaves a <style> never closed as it is, in one pass however many follow it', () => {
    const html = `<style>p { color: red }</style><p>Hi</p>${'<style>x'.repeat(40_000)}`;
    // The inliner reads an unclosed <style> to the end as CSS, as a parser does, and keeps none of it.
    expect(inlineCss(html).html).toBe('<p style="color: red;">Hi</p><style></style>');
  });

  it('inlines what an already-inlined export holds: a quoted font in a style attribute plus a <style> block', () => {
    // ESP exports and Postmark's inlined templates look like this; juice threw on it (a 500).
    const html =
      '<style>p { color: red }</style><p style="font-family: &quot;Nunito Sans&quot;, Arial">x</p>';
    const { html: out } = inlineCss(html);
    expect(out).toBe(`<p style="color: red;font-family: 'Nunito Sans', Arial">x</p>`);
  });

  it('keeps a CSS string that holds the other quote valid: the inliner writes every " as \'', () => {
    const cases: [string, string][] = [
      // A font name with an apostrophe, from a <style> rule.
      [
        `<style>.f{font-family:"Reader's Sans", Georgia, serif}</style><p class="f">x</p>`,
        `<p class="f" style="font-family: 'Reader\\'s Sans', Georgia, serif;">x</p>`,
      ],
      // An SVG data URI quoted with " around its own ' attributes.
      [
        `<style>.b{background-image:url("data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'%3E")}</style><p class="b">x</p>`,
        `<p class="b" style="background-image: url('data:image/svg+xml,%3Csvg xmlns=\\'http://www.w3.org/2000/svg\\'%3E');">x</p>`,
      ],
      // The element's own style attribute, with the quotes as references, is rewritten by the
      // inliner as soon as a rule matches the element.
      [
        `<style>p{color:red}</style><p style="font-family:&quot;Reader&#39;s Sans&quot;, serif">x</p>`,
        `<p style="color: red;font-family: 'Reader\\'s Sans', serif">x</p>`,
      ],
      [
        `<style>p{color:red}</style><p style='font-family:"Reader&apos;s Sans", serif'>x</p>`,
        `<p style="color: red;font-family: 'Reader\\'s Sans', serif">x</p>`,
      ],
      // A " inside a '-string becomes an escape the swap cannot touch.
      [
        `<style>.q{font-family:'a"b'}</style><p class="q">x</p>`,
        `<p class="q" style="font-family: 'a\\22 b';">x</p>`,
      ],
    ];
    for (const [html, expected] of cases) expect(inlineCss(html).html, html).toBe(expected);
    // Only real style attributes: a style= inside another attribute's unquoted value is its text.
    const inTitle = `<style>p{color:red}</style><p title=a"b"style='x:&apos;a&quot;onclick=alert(1)//&apos;'>Hi</p>`;
    expect(inlineCss(inTitle).html).toBe(
      `<p title="a&quot;b&quot;style='x:'a&quot;onclick=alert(1)//''" style="color: red;">Hi</p>`,
    );
    // Strings with one kind of quote, comments and what no rule touches stay as written.
    const plain = `<!-- <p style="font:&quot;a'b&quot;"> --><p title="&quot;it's&quot;">x</p><style>p{font-family:"A B"}</style>`;
    expect(inlineCss(plain).html).toBe(
      `<!-- <p style="font:&quot;a'b&quot;"> --><p title="&quot;it's&quot;" style="font-family: 'A B';">x</p>`,
    );
  });

  it("keeps :root rules of a fragment in <style>: inlined, they landed on the parser's <html> and were lost", () => {
    const html = '<style>:root{--brand:#cc0000} .t{color:var(--brand)}</style><p class="t">Brand</p>';
    expect(inlineCss(html).html).toBe(
      '<style>\n:root {--brand:#cc0000}\n</style><p class="t" style="color: var(--brand);">Brand</p>',
    );
  });

  it('keeps every at-rule in the <style> block, in order: @import web fonts, @media, @font-face, @keyframes, @supports', () => {
    const css = [
      "@import url('https://fonts.googleapis.com/css?family=Nunito+Sans');",
      '@font-face { font-family: Brand; src: url(https://example.com/brand.woff2) format("woff2"); }',
      'p.lead { color: #333; }',
      '@media (max-width: 600px) { p.lead { font-size: 14px !important } }',
      '@keyframes pulse { from { opacity: 1 } to { opacity: .5 } }',
      '@supports (display: grid) { .grid { display: grid } }',
    ].join('\n');
    const { html: out, keptInStyle } = inlineCss(
      `<html><head><style>${css}</style></head><body><p class="lead">x</p></body></html>`,
    );
    const [kept] = styleBlocks(out);
    expect(kept!.split('\n').filter(Boolean)).toEqual([
      "@import url('https://fonts.googleapis.com/css?family=Nunito+Sans');",
      '@font-face { font-family: Brand; src: url(https://example.com/brand.woff2) format("woff2"); }',
      '@media (max-width: 600px) { p.lead { font-size: 14px !important } }',
      '@keyframes pulse { from { opacity: 1 } to { opacity: .5 } }',
      '@supports (display: grid) { .grid { display: grid } }',
    ]);
    expect(keptInStyle).toBe(5);
    expect(out).toContain('<p class="lead" style="color: #333;">x</p>');
  });

  it('keeps the client hacks, which match markup the mail client adds, not ours', () => {
    const hacks = [
      '#outlook a { padding: 0; }',
      '.ExternalClass { width: 100%; }',
      '.ExternalClass, .ExternalClass p, .ExternalClass td { line-height: 100%; }',
      'a[x-apple-data-detectors] { color: inherit !important; text-decoration: none !important; }',
      '#MessageViewBody a { color: inherit; }',
      'u + .body a { color: inherit; }',
      'u ~ div .email-container { min-width: 100vw; }',
      '.a6S { display: none !important; opacity: 0.01 !important; }',
      '[owa] .column { width: 100% !important; }',
      '[data-ogsc] .dark-text { color: #fff !important; }',
    ];
    const html = `<!DOCTYPE html><html><head><style>${hacks.join('\n')}\n.email-container { max-width: 600px }</style></head><body class="body"><div class="email-container"><a href="https://example.com">x</a></div></body></html>`;
    const { html: out, keptInStyle } = inlineCss(html);
    expect(styleBlocks(out)[0]!.split('\n').filter(Boolean)).toEqual(hacks);
    expect(keptInStyle).toBe(hacks.length);
    expect(out).toContain('<div class="email-container" style="max-width: 600px;">');
  });

  it('keeps * resets in the <style> block and never copies them onto every element', () => {
    const html =
      '<html><head><style>* { -ms-text-size-adjust: 100% !important; } p { margin: 0 }</style></head><body><p>x</p></body></html>';
    const { html: out } = inlineCss(html);
    expect(styleBlocks(out)).toEqual(['\n* { -ms-text-size-adjust: 100% !important; }\n']);
    expect(out).not.toMatch(/style="[^"]*text-size-adjust/);
    expect(out).toContain('<p style="margin: 0;">x</p>');
  });

  it('keeps pseudo-classes and pseudo-elements, which no style attribute can hold', () => {
    const html =
      '<style>a { color: blue } a:hover { color: red } .btn::after { content: "→" } p:first-child { margin: 0 }</style><p><a class="btn" href="#">x</a></p>';
    const { html: out } = inlineCss(html);
    expect(styleBlocks(out)[0]).toBe('\na:hover { color: red }\n.btn::after { content: "→" }\n');
    expect(out).toContain('<p style="margin: 0;"><a class="btn" href="#" style="color: blue;">x</a></p>');
  });

  it('leaves a <style data-embed> block exactly as written, and does not inline it', () => {
    const embed = '<style data-embed>\n  .keep { color: blue }  /* as written */\n</style>';
    const html = `<html><head>${embed}<style>.x { color: red }</style></head><body><p class="keep x">x</p></body></html>`;
    const { html: out, keptInStyle } = inlineCss(html);
    expect(out).toContain(embed);
    expect(out).toContain('<p class="keep x" style="color: red;">x</p>');
    expect(keptInStyle).toBe(0);
  });

  it("keeps the author's doctype and <link> elements", () => {
    const doctype =
      '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n';
    const link = '<link href="https://fonts.googleapis.com/css?family=Nunito" rel="stylesheet">';
    const { html: out } = inlineCss(
      `${doctype}<html><head>${link}<style>p{color:red}</style></head><body><p>x</p></body></html>`,
    );
    expect(out.startsWith(doctype)).toBe(true);
    expect(out).toContain(link);
  });

  it('keeps a fragment a fragment, and its body rules for the client in <style>', () => {
    const html =
      '<style>body, html { background: #f3f3f3 } .cta { color: red }</style>\n<a class="cta" href="#">Buy</a>';
    const { html: out, keptInStyle } = inlineCss(html);
    expect(out).toBe(
      '<style>\nbody, html { background: #f3f3f3 }\n</style>\n<a class="cta" href="#" style="color: red;">Buy</a>',
    );
    expect(keptInStyle).toBe(1);
  });

  it('keeps only the selectors of a list that matched nothing, with the declarations as written', () => {
    const html =
      '<html><head><style>.used, .unused { mso-line-height-rule: exactly; line-height: 20px }</style></head><body><p class="used">x</p></body></html>';
    const { html: out } = inlineCss(html);
    expect(styleBlocks(out)).toEqual(['\n.unused { mso-line-height-rule: exactly; line-height: 20px }\n']);
    expect(out).toContain('style="mso-line-height-rule: exactly;line-height: 20px;"');
  });

  it('removes a block left empty, and leaves HTML without <style> as the parser writes it', () => {
    const { html: out, keptInStyle } = inlineCss(
      '<html><head><style>p { color: red }</style></head><body><p>x</p></body></html>',
    );
    expect(out).toBe('<html><head></head><body><p style="color: red;">x</p></body></html>');
    expect(keptInStyle).toBe(0);
  });

  it('does not take a marker-like comment in the input for one of its own', () => {
    const html = '<!--pm-0000000000000000-embed-0--><style>p{color:red}</style><p>x</p>';
    expect(inlineCss(html).html).toBe('<!--pm-0000000000000000-embed-0--><p style="color: red;">x</p>');
  });

  it('leaves a <style> in a textarea, title or script as written: to the parser it is text', () => {
    const html =
      '<html><head><title><style>p{color:red}</style></title>' +
      '<script type="text/template"><style>p { color: blue }</style></script></head>' +
      '<body><textarea><style>h1 { color: blue }</style></textarea><h1>x</h1><p>y</p></body></html>';
    const { html: out, keptInStyle } = inlineCss(html);
    expect(out).toBe(
      '<html><head><title>&lt;style&gt;p{color:red}&lt;/style&gt;</title>' +
        '<script type="text/template"><style>p { color: blue }</style></script></head>' +
        '<body><textarea>&lt;style&gt;h1 { color: blue }&lt;/style&gt;</textarea><h1>x</h1><p>y</p></body></html>',
    );
    expect(keptInStyle).toBe(0);
  });

  it('leaves the styles of an Outlook conditional comment byte for byte, and inlines the rest', () => {
    const html =
      '<html><head><!--[if mso]><style>td{font-family:Arial,sans-serif}</style><![endif]-->' +
      '<style><!-- td { color: #333 } --></style></head>' +
      '<body><table><tr><td>x</td></tr></table></body></html>';
    const { html: out } = inlineCss(html);
    expect(out).toContain('<!--[if mso]><style>td{font-family:Arial,sans-serif}</style><![endif]-->');
    expect(out).toContain('<td style="color: #333;">x</td>');
  });

  it('ends a comment where a parser does: an abrupt <!--> or a --!> does not hide the styles after it', () => {
    for (const comment of ['<!-->', '<!--->', '<!-- note --!>']) {
      const { html: out } = inlineCss(`${comment}<style>p { color: red }</style><p>x</p><!-- end -->`);
      expect(out).toContain('<p style="color: red;">x</p>');
    }
  });
});
