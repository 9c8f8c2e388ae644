import { describe, expect, it } from 'vitest';
import { cleanText, textFromHtml, wrapText } from './text-part.ts';

/** The text part rules (docs/decisions/0053-text-part-rules.md), on fixtures of what real emails contain. */
describe('textFromHtml', () => {
  it('drops the invisible padding after a preheader and keeps its words on one line', () => {
    const html =
      `<div style="display:none;max-height:0;overflow:hidden">Spring is here: 20% off everything` +
      `${'&zwnj;&nbsp;'.repeat(60)}${'&#847; '.repeat(20)}&#8199;&#65279;&shy;</div><p>Hello</p>`;
    expect(textFromHtml(html)).toBe('Spring is here: 20% off everything\n\nHello');
  });

  it.each([
    ['&zwnj;&nbsp;', '&zwnj;&nbsp;'],
    ['&#847;&zwnj;&nbsp;', '&#847;&zwnj;&nbsp;'],
    ['&#8199;&#847; ', '&#8199;&#847; '],
    ['&#8203;', '&#8203;'],
    ['&#x2060;&#xFEFF;', '&#x2060;&#xFEFF;'],
    // React Email's preview padding.
    ['&nbsp;&zwnj;&#8203;&zwj;&lrm;&rlm;&#xFEFF;', '&nbsp;&zwnj;&#8203;&zwj;&lrm;&rlm;&#xFEFF;'],
  ])('drops runs of %s', (_name, unit) => {
    expect(textFromHtml(`<p>Preview text${unit.repeat(40)}</p><p>Body</p>`)).toBe('Preview text\n\nBody');
  });

  it('collapses the blank lines that layout tables leave, to at most one', () => {
    const empty = '<tr><td>&nbsp;</td></tr><tr><td></td></tr><tr><td><br><br></td></tr>';
    const html = `<table><tr><td><h1>Title</h1></td></tr>${empty.repeat(10)}<tr><td><p>Text</p></td></tr></table>`;
    expect(textFromHtml(html)).toBe('TITLE\n\nText');
  });

  it('takes spacers of thin and hair spaces for blank lines, and such spaces between words for spaces', () => {
    // MJML's mj-spacer: a hair space in a div of the spacer's height.
    const spacer = (s: string) => `<div style="height:20px;line-height:20px;">${s}</div>`;
    const html =
      `${spacer('&#8202;')}<div>Your monthly news</div>${spacer('&#8202;')}${spacer('&thinsp;')}` +
      `${spacer('&emsp;&#8287;')}<div>10&thinsp;000 readers&#8202;—&#8202;thank you</div>`;
    expect(textFromHtml(html)).toBe('Your monthly news\n\n10 000 readers — thank you');
    // An ideographic space indents a Japanese paragraph: it stays.
    expect(textFromHtml('<p>\u3000今日は。</p>')).toBe('\u3000今日は。');
  });

  it('keeps links readable: the text, then the address in brackets, once', () => {
    const html =
      '<p>Read <a href="https://example.com/post?a=1&amp;b=2">the post</a> or go to ' +
      '<a href="https://example.com">https://example.com</a>.</p>';
    expect(textFromHtml(html)).toBe(
      'Read the post [https://example.com/post?a=1&b=2] or go to https://example.com.',
    );
  });

  it("gives a link that shows only an image that image's alt text, once", () => {
    const logo =
      '<a href="https://acme.example"><img src="l.png" alt="Acme"><img src="m.png" alt="Acme"></a>';
    expect(textFromHtml(`<p>Hi</p>${logo}`)).toBe('Hi\n\nAcme [https://acme.example]');
    const icons =
      '<a href="https://t.example/acme"><img src="t.png" alt=" Twitter "></a> ' +
      '<a href="https://f.example/acme">&zwnj;&nbsp;<img src="f.png" alt="Facebook"></a>';
    expect(textFromHtml(icons)).toBe('Twitter [https://t.example/acme] Facebook [https://f.example/acme]');
    // A link with words of its own keeps them alone; no alt text, or a link to no address, leaves
    // the image out as before.
    expect(textFromHtml('<a href="https://acme.example"><img alt="Logo"> Shop now</a>')).toBe(
      'Shop now [https://acme.example]',
    );
    expect(textFromHtml('<a href="https://acme.example"><img alt=""></a>')).toBe('https://acme.example');
    expect(textFromHtml('<a href="#top"><img alt="Top"></a><a href=""><img alt="Play"></a>')).toBe('');
  });

  it('starts a new word at a link written right after another (a menu spaced by CSS)', () => {
    expect(
      textFromHtml('<div><a href="#">Home</a><a href="#">New</a><!-- x --><a href="#">Kids</a></div>'),
    ).toBe('Home New Kids');
    expect(
      textFromHtml('<p><a href="https://a.example/">Home</a><a href="https://a.example/new">New</a></p>'),
    ).toBe('Home [https://a.example/] New [https://a.example/new]');
    // Other inline elements written together are one word, as the HTML shows them.
    expect(textFromHtml('<p><b>Bo</b><i>ld</i> <a href="https://a.example/">x</a>.</p>')).toBe(
      'Bold x [https://a.example/].',
    );
  });

  it('gives each row of words its own line, its cells apart, and leaves layout rows as their blocks lay out', () => {
    // A receipt: html-to-text ran every cell of the table into one line; cells written with no
    // space between them ran into one word.
    const receipt =
      '<p>Your order</p><table><tr><td>Item</td><td>$24.00</td></tr><tr><td>Shipping</td><td>$6.00</td></tr>' +
      '<tr><th>Total</th><th>$30.00</th></tr></table><p>Thanks</p>';
    expect(textFromHtml(receipt)).toBe('Your order\n\nItem $24.00\nShipping $6.00\nTotal $30.00\n\nThanks');
    expect(
      textFromHtml(
        '<table><thead><tr><th>Item</th><th>Price</th></tr></thead><tbody><tr><td>Tea</td><td>$3</td></tr></tbody></table>',
      ),
    ).toBe('Item Price\nTea $3');
    // A layout row (blocks inside): the space a nested table keeps before it stays.
    const layout =
      '<table><tr><td><div>Amazing deals</div></td></tr>' +
      '<tr><td><table><tr><td><a href="https://x.example/">Subscribe</a></td></tr></table></td></tr></table>';
    expect(textFromHtml(layout)).toBe('Amazing deals\n\nSubscribe [https://x.example/]');
  });

  it('leaves out what an inline style hides, but for the preheader before every word', () => {
    // MJML's navbar: the menu button is hidden but on phones, where a media query shows it.
    const navbar =
      '<div style="display:none">Spring sale ends Sunday</div>' +
      '<div style="display:none;max-height:0px;overflow:hidden"><label>&#9776;</label><span style="DISPLAY: NONE">&#8855;</span></div>' +
      '<p><a href="https://e.com/women">Women</a> <a href="https://e.com/men">Men</a></p>' +
      // A responsive template's phone-only copy of the same offer.
      '<table><tr><td>Take 20% off</td></tr><tr style="display: none !important"><td>20% off</td></tr></table>' +
      '<p>Ends <span style="display : none">hidden </span>Sunday.</p>';
    expect(textFromHtml(navbar)).toBe(
      'Spring sale ends Sunday\n\nWomen [https://e.com/women] Men [https://e.com/men]\n\nTake 20% off\n\nEnds Sunday.',
    );
    // A hidden element after the first words is never the preheader.
    expect(textFromHtml('<p>Hello</p><div style="display:none">Phone only</div><p>Bye</p>')).toBe(
      'Hello\n\nBye',
    );
  });

  it('leaves out what the author marks data-skip-in-text, as React Email does: its <Preview>, a logo header', () => {
    // React Email's <Preview>, as it renders it, then a linked logo header marked the same way.
    const reactEmail =
      '<div style="display:none;overflow:hidden;line-height:1px;opacity:0;max-height:0;max-width:0" data-skip-in-text="true">' +
      'Your order has shipped<div> \u200c\u200b\u200d\u200e\u200f\ufeff</div></div>' +
      '<section data-skip-in-text="TRUE"><a href="https://acme.example"><img alt="Acme" src="https://acme.example/logo.png"></a></section>' +
      '<h1>Order 1234</h1><p>It is on its way.</p>';
    expect(textFromHtml(reactEmail)).toBe('ORDER 1234\n\nIt is on its way.');
    // Any other value keeps the element.
    expect(textFromHtml('<p data-skip-in-text="false">Kept</p>')).toBe('Kept');
  });

  it('leaves out a link that shows nothing nameable where a link with words goes to the same address', () => {
    // MJML's social button: an icon with alt="", then the network's name, both linked.
    const social =
      '<table><tr><td><a href="https://facebook.com/acme"><img src="https://e.com/f.png" alt=""></a></td>' +
      '<td><a href="https://facebook.com/acme">Facebook</a></td></tr></table>';
    expect(textFromHtml(social)).toBe('Facebook [https://facebook.com/acme]');
    // Without a named twin the address is all there is to show; in a list item it stays too.
    expect(textFromHtml('<p><a href="https://e.com/x"><img src="https://e.com/x.png" alt=""></a></p>')).toBe(
      'https://e.com/x',
    );
    expect(
      textFromHtml(
        '<ul><li><a href="https://e.com/c"></a></li></ul><p><a href="https://e.com/c">Contact</a></p>',
      ),
    ).toBe(' * https://e.com/c\n\nContact [https://e.com/c]');
  });

  it('keeps words written with joiners: Persian, emoji sequences, and hyphenation points', () => {
    const html = '<p>می‌خواهم 👨‍👩‍👧 exam&shy;ple</p>';
    expect(textFromHtml(html)).toBe('می‌خواهم 👨‍👩‍👧 example');
    // A direction mark between letters orders mixed text: kept.
    expect(textFromHtml('<p>שלום&rlm;ABC</p>')).toBe('שלום\u200FABC');
  });

  it('leaves lists indented and the head, styles and images out', () => {
    const html =
      '<head><title>T</title><style>p{color:red}</style></head><ul><li>one<ul><li>two</li></ul></li></ul><img src="x.png" alt="logo">';
    expect(textFromHtml(html)).toBe(' * one\n   * two');
  });

  it("leaves out what no reader sees wherever it stands: a fragment's <title>, a <template>, a <script>", () => {
    const html =
      '<title>Internal: draft v3 for ACME</title><p>Hello customer</p><template><p>Unused variant B copy</p></template><script>var x = "code";</script>';
    expect(textFromHtml(html)).toBe('Hello customer');
  });
});

describe('wrapText', () => {
  it('wraps at 78 at spaces, keeping list indentation and quote marks, and never cuts a link', () => {
    const words = 'word '.repeat(30).trim();
    const link = `https://example.com/${'x'.repeat(100)}`;
    expect(wrapText(` * ${words}`).split('\n')).toEqual([
      ` * ${'word '.repeat(15).trim()}`,
      `   ${'word '.repeat(15).trim()}`,
    ]);
    expect(
      wrapText(`> ${words}`)
        .split('\n')
        .every((l) => l.startsWith('> ') && l.length <= 78),
    ).toBe(true);
    expect(wrapText(`see ${link} now`).split('\n')).toEqual(['see', link, 'now']);
  });
});

describe('cleanText', () => {
  it('keeps a signature separator and strips other trailing blanks', () => {
    expect(cleanText('Thanks  \n-- \nStudio \n')).toBe('Thanks\n-- \nStudio');
  });

  it('normalises line ends', () => {
    expect(cleanText('a\r\nb\rc')).toBe('a\nb\nc');
  });

  it('gives what the regular expressions it replaces gave, in linear time on long runs of blanks', () => {
    // The former steps: trailing blanks of each line (as `$` reads lines), then blank lines, then
    // the newlines at either end.
    const former = (text: string) =>
      text
        .replace(/[ \t]+$/gm, (blank, offset: number, all: string) =>
          all.slice(offset - 2, offset) === '--' && (offset === 2 || all[offset - 3] === '\n') ? blank : '',
        )
        .replace(/\n{3,}/g, '\n\n')
        .replace(/^\n+|\n+$/g, '');
    const pieces = ['a', ' ', '\t', '\n', '--', '\u2028', 'é', '  \t ', '\n\n\n'];
    let seed = 7;
    for (let n = 0; n < 2_000; n++) {
      let text = '';
      for (let i = 0; i < 12; i++) {
        seed = (seed * 48271) % 2147483647;
        text += pieces[seed % pieces.length];
      }
      expect(cleanText(text), JSON.stringify(text)).toBe(former(text));
    }
    // 200,000 spaces before a letter, and 200,000 newlines: minutes for the former steps.
    expect(cleanText(`${' '.repeat(200_000)}x`)).toBe(`${' '.repeat(200_000)}x`);
    expect(cleanText(`x${'\n'.repeat(200_000)}y${'\n'.repeat(200_000)}`)).toBe('x\n\ny');
  });
});
