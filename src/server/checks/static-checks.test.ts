import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CHECK_IDS,
  DEFAULT_TARGET_CLIENTS,
  type Check,
  type CheckId,
  type Finding,
  type TargetClientId,
} from '../../shared/contract/checks.ts';
import { textFromHtml } from '../mail/text-part.ts';
import type { CheckInput } from './check-input.ts';
import { parseHtml } from './html-doc.ts';
import { unseenRanges } from './content.ts';
import { runStaticChecks } from './static-checks.ts';

/** A well-formed email around `body`, clean for every check, so a test's defect is the only finding. */
function email(body: string, head = ''): string {
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Hello</title>${head}</head>` +
    `<body><div style="display:none; max-height:0; overflow:hidden; mso-hide:all;">A short summary.</div>` +
    `${body}<p><a href="https://example.com/unsubscribe">Unsubscribe</a></p></body></html>`
  );
}

function run(
  html: string,
  over: Partial<CheckInput> = {},
  targets: readonly TargetClientId[] = DEFAULT_TARGET_CLIENTS,
): Record<CheckId, Check> {
  const input: CheckInput = {
    html,
    text: textFromHtml(html),
    subject: 'Spring sale',
    bytes: { message: 20_000 },
    headers: [],
    ...over,
  };
  return Object.fromEntries(runStaticChecks(input, targets).map((c) => [c.id, c])) as Record<CheckId, Check>;
}

const problems = (c: Check): Finding[] => c.findings.filter((f) => f.severity !== 'info');
const only = (c: Check, severity: Finding['severity'], re: RegExp) => {
  const found = c.findings.filter((f) => f.severity === severity && re.test(f.message));
  expect(found, JSON.stringify(c.findings, null, 1)).toHaveLength(1);
  return found[0]!;
};

describe('the baseline email', () => {
  it('passes every static check', () => {
    const checks = run(email('<p style="color:#222222">Hello there.</p>'));
    for (const id of CHECK_IDS.filter((i) => i !== 'spam')) {
      expect(problems(checks[id]), id).toEqual([]);
      expect(checks[id].status).toBe('pass');
    }
  });
});

describe('size', () => {
  it('warns from 90 KB and errs from 102 KB of the encoded message, with the headroom', () => {
    const html = email('<p>x</p>');
    expect(run(html, { bytes: { message: 48.2 * 1024 } }).size.findings[0]!.message).toBe(
      "48.2 KB of Gmail's 102 KB: 53.8 KB to spare.",
    );
    expect(run(html, { bytes: { message: 90 * 1024 - 1 } }).size.status).toBe('pass');
    expect(run(html, { bytes: { message: 90 * 1024 } }).size.status).toBe('warning');
    expect(run(html, { bytes: { message: 102 * 1024 - 1 } }).size.status).toBe('warning');
    const over = run(html, { bytes: { message: 110 * 1024 } }).size;
    expect(over.status).toBe('error');
    expect(over.findings[0]!.message).toMatch(/over Gmail's 102 KB, by 8\.0 KB/);
  });
});

describe('links', () => {
  const cases: [string, Finding['severity'], RegExp][] = [
    ['', 'error', /empty href/],
    ['#', 'error', /"#"/],
    ['javascript:alert(1)', 'error', /javascript:/],
    ['https://exa mple.com/', 'error', /malformed/],
    ['http://example.com/', 'warning', /http:, not https:/],
    ['mailto:not-an-address', 'error', /mailto: link is broken/],
    ['mailto:', 'error', /mailto: link is broken/],
    ['/relative/page', 'error', /relative link/],
    ['facebook.com', 'error', /relative link/],
    ['&lt;%asm_group_unsubscribe_raw_url%&gt;', 'error', /placeholder left unfilled \("<%asm_group/],
    ['[Unsubscribe]', 'error', /placeholder left unfilled/],
    ['%unsubscribe_url%', 'error', /placeholder left unfilled/],
    ['https://mjml.iohttps://mjml.io', 'error', /two addresses run together/],
  ];
  it.each(cases)('href="%s" is a %s', (href, severity, re) => {
    const html = email(`<p>See <a href="${href}">the spring catalogue</a>.</p>`);
    const links = run(html).links;
    const f = only(links, severity, re);
    expect(f.line).toBe(1);
    expect(f.element).toContain('<a href=');
    expect(links.status).toBe(severity);
  });
  it('accepts an internationalised domain in a mailto: and an IPv6 host', () => {
    const html = email(
      '<p><a href="mailto:ann@bücher.example">Write to Ann</a> <a href="https://[2001:db8::1]/shop">The shop</a></p>',
    );
    expect(problems(run(html).links)).toEqual([]);
    only(run(email('<p><a href="https://shop/">The shop</a></p>')).links, 'error', /malformed/);
  });
  it('warns on an <a> without an href that shows something, not on an anchor target', () => {
    const f = only(
      run(email('<p>Read on.</p>\n<a style="background:#0B5073; color:#ffffff">Explore templates</a>')).links,
      'warning',
      /no href/,
    );
    expect([f.line, f.element?.startsWith('<a style=')]).toEqual([2, true]);
    only(
      run(email('<a><img src="https://e.com/b.png" alt="Shop" width="100"></a>')).links,
      'warning',
      /no href/,
    );
    const targets = email(
      '<a name="top"></a><a id="more">More</a><p>x</p><a href="#top">Back to the top</a>',
    );
    expect(problems(run(targets).links)).toEqual([]);
  });
  it("leaves a sending service's merge tag in an href to the content check", () => {
    const checks = run(email('<p><a href="[[SHORT_PERMALINK]]">Share this email</a></p>'));
    expect(problems(checks.links)).toEqual([]);
    expect(only(checks.content, 'error', /merge tag/).message).toContain('[[SHORT_PERMALINK]]');
  });
  it('accepts https, a valid mailto with a subject, tel and anchors', () => {
    const html = email(
      '<p><a href="https://example.com/a?b=1&amp;c=2">Catalogue</a> <a href="mailto:help@example.com?subject=Hi">Write to us</a> <a href="tel:+441234">Call us</a></p>',
    );
    expect(problems(run(html).links)).toEqual([]);
  });
});

describe('images', () => {
  it('reports a missing alt as an error, but not a decorative alt=""', () => {
    const missing = run(email('<img src="https://cdn.example.com/a.png" width="100">')).images;
    only(missing, 'error', /no alt attribute/);
    const decorative = run(email('<img src="https://cdn.example.com/a.png" width="100" alt="">')).images;
    expect(problems(decorative)).toEqual([]);
  });
  it('warns on a 1×1 tracking pixel without alt, which has nothing to show', () => {
    const pixel = (attrs: string) => run(email(`<img src="https://t.example.com/o.gif" ${attrs}>`)).images;
    const f = only(pixel('width="1" height="1"'), 'warning', /no alt/);
    expect(f.message).toBe(
      'A 1×1 image (a tracking pixel) has no alt attribute: screen readers may read its file name.',
    );
    only(pixel('width="1" style="width:1px; height:1px"'), 'warning', /tracking pixel/);
    expect(problems(pixel('width="1" height="1" alt=""'))).toEqual([]);
    // One side of a pixel is not a pixel: a 600×1 rule line is an image with a size.
    only(pixel('width="600" height="1"'), 'error', /no alt attribute/);
  });
  it('warns on http: sources and a missing width; errs on base64 images', () => {
    only(
      run(email('<img src="http://cdn.example.com/a.png" width="100" alt="A">')).images,
      'warning',
      /http:/,
    );
    only(run(email('<img src="https://cdn.example.com/a.png" alt="A">')).images, 'warning', /no width/);
    // Only where classic Outlook is a target and sees the image.
    const image = '<img src="https://cdn.example.com/a.png" alt="A" style="width:100%">';
    expect(problems(run(email(image), {}, ['gmail-web', 'apple-mail-ios']).images)).toEqual([]);
    expect(problems(run(email(`<!--[if !mso]><!-->${image}<!--<![endif]-->`)).images)).toEqual([]);
    expect(problems(run(email(`<div style="display:none; mso-hide:all">${image}</div>`)).images)).toEqual([]);
    only(
      run(email('<img src="data:image/png;base64,iVBORw0KGgo=" width="1" alt="A">')).images,
      'error',
      /base64/,
    );
  });
});

describe('accessibility', () => {
  it('wants lang on <html> and a <title>', () => {
    const html =
      '<html><head></head><body><div style="display:none">Summary</div><p>Hi</p><a href="https://e.com/unsubscribe">Unsubscribe</a></body></html>';
    const a11y = run(html).accessibility;
    only(a11y, 'warning', /no lang attribute/);
    only(a11y, 'warning', /no <title>/);
  });
  it('takes "und" (undetermined, MJML\'s default) for no language', () => {
    const page = (attrs: string) =>
      `<!DOCTYPE html><html${attrs}><head><title>T</title></head><body><div${attrs}><p>Hi</p><a href="https://e.com/unsubscribe">Unsubscribe</a></div></body></html>`;
    const lang = (html: string) => run(html).accessibility.findings.filter((f) => /lang/.test(f.message));
    expect(lang(page(' lang="und"')).map((f) => f.message)).toEqual([
      'The email\'s language is "und", undetermined (MJML writes it when <mjml> has no lang): screen readers may read the email in the wrong language.',
    ]);
    expect(lang(page(' lang="UND"'))).toHaveLength(1);
    expect(lang(page(' lang="en"'))).toEqual([]);
    expect(lang(page(' lang="und-Latn"'))).toHaveLength(1);
  });
  it('takes the language from <body> or a wrapper around all the text, as webmail drops <html>', () => {
    const page = (body: string, bodyAttrs = '') =>
      `<!DOCTYPE html><html><head><title>T</title></head><body${bodyAttrs}>${body}</body></html>`;
    const content =
      '<div style="display:none">Summary</div><p>Hi</p><a href="https://e.com/unsubscribe">Unsubscribe</a>';
    const lang = (html: string) => run(html).accessibility.findings.filter((f) => /lang/.test(f.message));
    expect(lang(page(`<div role="article" aria-roledescription="email" lang="en">${content}</div>`))).toEqual(
      [],
    );
    expect(lang(page(content, ' lang="en"'))).toEqual([]);
    // A language on one part is not the email's.
    expect(lang(page(`<p lang="fr">Bonjour</p>${content}`))).toHaveLength(1);
  });
  it('names a link as a screen reader does: aria-labelledby, aria-label, text and alt, title', () => {
    const link = (a: string) =>
      problems(run(email(`<p id="t">The spring catalogue</p><p>${a}</p>`)).accessibility).map(
        (f) => f.message,
      );
    expect(link('<a href="https://e.com/a" aria-label="Read the spring catalogue">Read more</a>')).toEqual(
      [],
    );
    expect(link('<a href="https://e.com/a" aria-labelledby="t">More</a>')).toEqual([]);
    expect(
      link(
        '<a href="https://e.com/a" title="Acme home page"><img src="https://e.com/l.png" alt="" width="90"></a>',
      ),
    ).toEqual([]);
    expect(link('<a href="https://e.com/a"><img src="https://e.com/l.png" alt="" width="90"></a>')).toEqual([
      'A link has no text: screen readers read its URL.',
    ]);
    expect(link('<a href="https://e.com/a" aria-label="Here">The spring catalogue</a>')).toEqual([
      'A link says "Here": out of context, it does not say where it goes.',
    ]);
  });
  it('flags layout tables without role="presentation", not data tables', () => {
    const layout = run(email('<table><tr><td>Hi</td></tr></table>')).accessibility;
    only(layout, 'warning', /layout table has no role="presentation"/);
    const data = run(email('<table><tr><th>Item</th></tr><tr><td>Tea</td></tr></table>')).accessibility;
    expect(problems(data)).toEqual([]);
    const marked = run(email('<table role="presentation"><tr><td>Hi</td></tr></table>')).accessibility;
    expect(problems(marked)).toEqual([]);
  });
  it('flags file-name alt text, skipped heading levels and vague link text', () => {
    only(
      run(email('<img src="https://e.com/a.png" width="1" alt="IMG_2041.jpg">')).accessibility,
      'warning',
      /alt text/,
    );
    const headings = run(email('<h1>Title</h1><h3>Skipped</h3>')).accessibility;
    expect(only(headings, 'warning', /skips a level/).message).toContain('<h3> follows <h1>');
    only(
      run(email('<p><a href="https://e.com/x">Click here</a></p>')).accessibility,
      'warning',
      /Click here/,
    );
    only(run(email('<p><a href="https://e.com/x">Read more…</a></p>')).accessibility, 'warning', /Read more/);
    only(
      run(email('<p><a href="https://e.com/x">Read more ›› </a></p>')).accessibility,
      'warning',
      /Read more/,
    );
    // 200,000 dots before a letter: the marks are trimmed from the end in one pass.
    const dots = run(email(`<p><a href="https://e.com/x">${'.'.repeat(200_000)}x</a></p>`)).accessibility;
    expect(problems(dots)).toEqual([]);
  });
  it('measures contrast from the colours of the element and its ancestors', () => {
    const low = run(
      email(
        '<table role="presentation" bgcolor="#ffffff"><tr><td style="color:#aaaaaa">Faint text</td></tr></table>',
      ),
    ).accessibility;
    expect(only(low, 'warning', /contrast/).message).toBe(
      'Text in #aaaaaa on #ffffff has a contrast of 2.32:1; text needs 4.5:1.',
    );
    // 3:1 is enough for large text.
    const large = run(email('<p style="color:#888888; font-size:28px">Big headline</p>')).accessibility;
    expect(problems(large)).toEqual([]);
    const fine = run(
      email('<div style="background-color:#1a4d2e"><p style="color:#ffffff">White on green</p></div>'),
    ).accessibility;
    expect(problems(fine)).toEqual([]);
  });
  it('flags text under 12px, not hidden text', () => {
    only(
      run(email('<p style="font-size:10px">Small print</p>')).accessibility,
      'warning',
      /smaller than 12px/,
    );
    expect(problems(run(email('<p style="font-size:12px">Small print</p>')).accessibility)).toEqual([]);
    expect(problems(run(email('<p style="font-size:0">Gap</p>')).accessibility)).toEqual([]);
    // A spacer of invisible characters (zero-width, soft hyphen, the grapheme joiner) is no text.
    const spacer =
      '<table role="presentation"><tr><td style="font-size:1px; line-height:1px">&zwnj;&#8203;&#847;&shy;</td></tr></table>';
    expect(problems(run(email(spacer)).accessibility)).toEqual([]);
  });
  it('sizes text as the cascade does: headings, relative units, the font shorthand, <font size>', () => {
    const contrast = (html: string) => problems(run(email(html)).accessibility);
    // #8a8a8a on white is 3.45:1: enough for large text (24px, or 18.66px bold), not for the rest.
    for (const large of [
      '<h1 style="color:#8a8a8a">Spring sale</h1>',
      '<h2 style="color:#8a8a8a">Spring sale</h2>',
      '<h3 style="color:#8a8a8a">Spring sale</h3>',
      '<p style="color:#8a8a8a; font-size:1.5em">Spring sale</p>',
      '<div style="font-size:20px"><p style="color:#8a8a8a; font-size:120%">Spring sale</p></div>',
      '<p style="color:#8a8a8a; font:bold 19px Arial, sans-serif">Spring sale</p>',
      '<p style="color:#8a8a8a; font-size:x-large">Spring sale</p>',
    ])
      expect(contrast(large), large).toEqual([]);
    for (const normal of [
      '<h4 style="color:#8a8a8a">Spring sale</h4>',
      '<h3 style="color:#8a8a8a; font-weight:normal">Spring sale</h3>',
      '<p style="color:#8a8a8a; font:19px Arial; font-weight:normal">Spring sale</p>',
      '<p style="font-weight:bold; color:#8a8a8a; font:19px Arial">Spring sale</p>',
    ])
      expect(
        contrast(normal).map((f) => f.message),
        normal,
      ).toEqual([expect.stringMatching(/^Text in #8a8a8a on #ffffff .* text needs 4.5:1/)]);
    for (const small of [
      '<p style="font:10px/1.4 Arial">Small print</p>',
      '<div style="font-size:14px"><p style="font-size:0.75em">Small print</p></div>',
      '<p><font size="1">Small print</font></p>',
      '<p style="font-size:13px"><small>Small print</small></p>',
    ])
      only(run(email(small)).accessibility, 'warning', /smaller than 12px/);
    // Inside a font-size:0 cell, a size in em is 0 too: unseen, not small.
    expect(
      problems(
        run(email('<div style="font-size:0"><span style="font-size:1.2em">Gap</span></div>')).accessibility,
      ),
    ).toEqual([]);
  });
  it('judges the columns of a font-size:0 cell, which set their own size (the hybrid layout)', () => {
    const columns = (colour: string) =>
      email(
        `<table role="presentation"><tr><td style="font-size:0"><div style="display:inline-block">` +
          `<p style="font-size:15px; color:${colour}">Column text</p></div></td></tr></table>`,
      );
    only(run(columns('#aaaaaa')).accessibility, 'warning', /#aaaaaa on #ffffff/);
    expect(problems(run(columns('#333333')).accessibility)).toEqual([]);
    // Their box is not hidden either: what they use is scored.
    const sized = email(
      '<table role="presentation"><tr><td style="font-size:0"><div style="display:inline-block; min-width:200px">' +
        '<p style="font-size:15px">Column</p></div></td></tr></table>',
    );
    only(run(sized, {}, ['outlook-windows']).compatibility, 'error', /min-width/);
  });
});

describe('content', () => {
  it('wants a preheader', () => {
    const html =
      '<html lang="en"><head><title>T</title></head><body><p>Visible first line</p><a href="https://e.com/unsubscribe">Unsubscribe</a></body></html>';
    only(run(html).content, 'warning', /No preheader/);
  });
  it('says the preview is blank when spacers after an empty preheader fill it', () => {
    const withSpacers = (pairs: number) =>
      '<html lang="en"><head><title>T</title></head><body><div style="display:none"></div>' +
      `<span style="display:none">${'&zwnj;&nbsp;'.repeat(pairs)}</span>` +
      '<p>Visible first line</p><a href="https://e.com/unsubscribe">Unsubscribe</a></body></html>';
    only(run(withSpacers(50)).content, 'warning', /^No preheader: inboxes show a blank preview/);
    // Too few to fill a preview: the first text shows after them.
    only(run(withSpacers(20)).content, 'warning', /^No preheader: .*\("Visible first line"\)/);
  });
  it('takes text its author marked as the preheader for one, hidden by a <style> rule or shown', () => {
    const marked = (attribute: string) =>
      `<html lang="en"><head><title>T</title><style>.preheader{display:none}</style></head><body>` +
      `<table role="presentation"><tr><td ${attribute}><span>This week: the spring sale</span></td></tr></table>` +
      '<p>Hello</p><a href="https://e.com/unsubscribe">Unsubscribe</a></body></html>';
    expect(problems(run(marked('class="preheader"')).content)).toEqual([]);
    expect(problems(run(marked('id="templatePreheader"')).content)).toEqual([]);
    expect(problems(run(marked('class="pre-header-text"')).content)).toEqual([]);
    only(run(marked('class="header"')).content, 'warning', /No preheader/);
  });
  it('warns on an empty (default) or long subject', () => {
    only(run(email('<p>x</p>'), { subject: 'Test Email' }).content, 'warning', /subject is empty/);
    only(run(email('<p>x</p>'), { subject: 'x'.repeat(71) }).content, 'warning', /71 characters/);
    expect(problems(run(email('<p>x</p>'), { subject: 'x'.repeat(70) }).content)).toEqual([]);
  });
  it('errs on merge tags left unfilled, in the HTML, the text, the subject and from a template engine', () => {
    for (const tag of [
      '{{ first_name }}',
      '*|FNAME|*',
      '{% if vip %}',
      // The sending services' own, which only they fill: Mailjet, Mailgun, Salesforce.
      '[[HEADLINE]]',
      '[[var:firstname:"there"]]',
      '%recipient.first_name%',
      '%%FirstName%%',
      '%%=v(@name)=%%',
      '%%[ SET @first = AttributeValue("FirstName") ]%%',
      // Handlebars' triple braces, quoted whole.
      '{{{ raw }}}',
    ]) {
      const c = run(email(`<p>Hello ${tag}</p>`)).content;
      expect(only(c, 'error', /merge tag/).message).toContain(tag);
      expect(c.status).toBe('error');
    }
    only(run(email('<p>x</p>'), { subject: 'Hi {{name}}' }).content, 'error', /in the subject/);
    // What only looks like one: nested brackets of numbers, percentages.
    expect(problems(run(email('<p>Pairs [[1, 2], [3, 4]]: 50% off, then 20%% more.</p>')).content)).toEqual(
      [],
    );
    const blank = only(
      run(email('<p>x</p>'), { notes: { unfilled: ['company'] } }).content,
      'error',
      /company/,
    );
    expect(blank.message).toBe('A merge tag has no value in the sample data, so it is sent blank: company.');
    // A Mailchimp tag the filler left as written is reported once, in the HTML at its line.
    const mailchimp = only(
      run(email('<p>Hi *|FNAME|*</p>'), { notes: { unfilled: ['FNAME'] } }).content,
      'error',
      /merge tag/,
    );
    expect(mailchimp.message).toContain('in the HTML: *|FNAME|*');
    // The generated text part writes a heading in capitals: its tag is the HTML's, reported once.
    const heading = email('<h1>Hi {{name}}</h1>');
    expect(textFromHtml(heading)).toContain('{{NAME}}');
    only(run(heading).content, 'error', /merge tag/);
    // A text part of the user's own with a tag the HTML lacks is reported.
    only(run(email('<p>x</p>'), { text: 'Hi {{NAME}}' }).content, 'error', /in the plain-text part/);
  });
  it('reads Mailchimp tags with arguments, and no tag in a comment, which no reader sees', () => {
    for (const tag of [
      '*|DATE:d/m/y|*',
      '*|IF:AGE>=18|*',
      '*|FEEDBLOCK:https://e.com/feed|*',
      '*|RSSITEMS:[5]|*',
    ])
      expect(only(run(email(`<p>${tag}</p>`)).content, 'error', /merge tag/).message).toContain(tag);
    const commented = email(
      '<!-- {{ first_name }} kept for later --><p>Hi</p><!--> {{shown}}',
      '<style>/* {{brand}} */ p { color: #111 }</style>',
    );
    expect(only(run(commented).content, 'error', /merge tag/).message).toContain('{{shown}}');
    // Outlook shows what its conditional comment holds.
    const outlook = email('<!--[if mso]><p>Hi {{first_name}}</p><![endif]--><p>Hi</p>');
    expect(only(run(outlook).content, 'error', /merge tag/).message).toContain('{{first_name}}');
  });
  it('quotes the start of the email a reader sees, across inline elements, when there is no preheader', () => {
    const html =
      '<html lang="en"><head><title>T</title></head><body><p>Hello <b>bold world</b><span style="display:none">x</span>' +
      ' and <a href="https://e.com/a">a link</a> more</p><a href="https://e.com/unsubscribe">Unsubscribe</a></body></html>';
    expect(only(run(html).content, 'warning', /No preheader/).message).toContain(
      '("Hello bold world and a link more")',
    );
  });
  it('errs on an object sent as text, and on MJML sent as HTML', () => {
    const object = only(run(email('<p>Hi [object Object]</p>')).content, 'error', /object/);
    expect(object.message).toBe(
      'The HTML shows "[object Object]": a merge tag was filled with an object, not a text.',
    );
    expect(object.line).toBe(1);
    only(run(email('<p>x</p>'), { subject: 'Hi [object Object]' }).content, 'error', /The subject shows/);
    const mjml = '<!-- welcome -->\n<mjml><mj-body><mj-text>Hi</mj-text></mj-body></mjml>';
    const found = only(run(mjml).content, 'error', /MJML sent as HTML/);
    expect(found.line).toBe(2);
    expect(problems(run(email('<p>We write our emails in &lt;mjml&gt;.</p>')).content)).toEqual([]);
  });
  it('reports what clients strip', () => {
    only(run(email('<script>alert(1)</script>')).content, 'error', /scripts/);
    only(run(email('<form action="https://e.com"><input name="q"></form>')).content, 'warning', /<form>/);
    only(run(email('<iframe src="https://e.com"></iframe>')).content, 'error', /iframes/);
    only(run(email('<video src="https://e.com/v.mp4"></video>')).content, 'warning', /video/);
    only(run(email('<object data="x"></object>')).content, 'error', /<object>/);
    only(run(email('<embed src="x">')).content, 'error', /<embed>/);
    // Gmail's email markup: JSON-LD no client runs.
    const markup = email(
      '<p>x</p>',
      '<script type="application/ld+json">{"@context":"http://schema.org"}</script>',
    );
    expect(problems(run(markup).content)).toEqual([]);
  });
  it("leaves the hidden checkbox of MJML's navbar alone: without it the links show", () => {
    const hack = email(
      '<input class="mj-menu-checkbox" type="checkbox" style="display:none !important; max-height:0; visibility:hidden;">' +
        '<div class="mj-inline-links"><a href="https://e.com/shop">Shop</a></div>',
    );
    expect(problems(run(hack).content)).toEqual([]);
    // A checkbox a reader sees is a form field like any other.
    only(run(email('<p><input type="checkbox"> Keep me posted</p>')).content, 'warning', /form fields/);
  });
  it("warns on an external style sheet, not on a web font's (which MJML adds for its fonts)", () => {
    const sheet = (href: string) =>
      email('<p>x</p>', `<link href="${href}" rel="stylesheet" type="text/css">`);
    only(run(sheet('https://e.com/main.css')).content, 'warning', /external style sheets/);
    expect(problems(run(sheet('https://fonts.googleapis.com/css?family=Ubuntu:300,400')).content)).toEqual(
      [],
    );
  });
  it('takes no unsubscribe link for fine when the subject names a transaction (an info, not a warning)', () => {
    const html = email('<p>x</p>').replace(
      /<p><a href="https:\/\/example.com\/unsubscribe">Unsubscribe<\/a><\/p>/,
      '',
    );
    for (const subject of ['Your receipt from Paper & Pen', 'Reset your password', 'Order #1234 shipped']) {
      const c = run(html, { subject }).content;
      expect(problems(c), subject).toEqual([]);
      expect(c.findings.find((f) => /No unsubscribe link/.test(f.message))?.severity).toBe('info');
    }
    only(run(html, { subject: 'Spring sale: 20% off' }).content, 'warning', /No unsubscribe link/);
  });
  it('warns without an unsubscribe link, unless a List-Unsubscribe header is there', () => {
    const html =
      '<html lang="en"><head><title>T</title></head><body><div style="display:none">S</div><p>Hi</p></body></html>';
    only(run(html).content, 'warning', /No unsubscribe link/);
    const header = [{ name: 'List-Unsubscribe', value: '<https://e.com/u>' }];
    expect(problems(run(html, { headers: header }).content)).toEqual([]);
  });
  it('knows an unsubscribe link in the languages emails are written in, by its text or its address', () => {
    const footer = (link: string) =>
      '<html lang="de"><head><title>T</title></head><body><div style="display:none">S</div><p>Hallo</p>' +
      `<p>${link}</p></body></html>`;
    for (const link of [
      '<a href="https://e.com/n">Newsletter abbestellen</a>',
      '<a href="https://e.com/n">Abmelden</a>',
      '<a href="https://e.com/n">Se désabonner</a>',
      '<a href="https://e.com/n">Darse de baja</a>',
      '<a href="https://e.com/n">Descadastre-se</a>',
      '<a href="https://e.com/n">Disiscriviti</a>',
      '<a href="https://e.com/n">Uitschrijven</a>',
      '<a href="https://e.com/n">Отписаться от рассылки</a>',
      '<a href="https://e.com/n">配信停止</a>',
      '<a href="https://e.com/n">Manage your email preferences</a>',
      '<a href="https://e.com/n">Opt out</a>',
      '<a href="https://e.com/newsletter/optout?id=1">hier</a>',
    ])
      expect(problems(run(footer(link)).content), link).toEqual([]);
    // A cancellation policy is not one.
    only(
      run(footer('<a href="https://e.com/p">Cancellation policy</a>')).content,
      'warning',
      /No unsubscribe/,
    );
  });
});

describe('plain-text', () => {
  it('errs on an empty text part and warns for each link it lacks', () => {
    const html = email(
      '<p><a href="https://example.com/a">Catalogue</a> <a href="https://example.com/b">Shop</a></p>',
    );
    only(run(html, { text: '  ' })['plain-text'], 'error', /empty/);
    const partial = run(html, {
      text: 'Catalogue https://example.com/a\nUnsubscribe https://example.com/unsubscribe',
    })['plain-text'];
    expect(only(partial, 'warning', /lacks a link/).message).toContain('https://example.com/b');
    expect(problems(run(html)['plain-text'])).toEqual([]);
  });

  it('counts a link only where it stands whole: a longer URL that starts with it is another link', () => {
    const html = email(
      '<p><a href="https://example.com/1">One</a> <a href="https://example.com/">Home</a></p>',
    );
    const lacks = (text: string) => {
      const check = run(html, { text: `${text}\nUnsubscribe https://example.com/unsubscribe` })['plain-text'];
      return check.findings
        .filter((f) => /lacks a link/.test(f.message))
        .map((f) => f.message.replace(/.*: /, ''));
    };
    // Present: at the end, before a space or a line end, in brackets or parentheses, before a full stop.
    for (const around of ['%s', '%s and more', '%s\nnext', '[%s]', '(%s)', 'Read it at %s.', 'At %s, or']) {
      const text = [around.replace('%s', 'https://example.com/1'), 'Home https://example.com'].join('\n');
      expect(lacks(text), around).toEqual([]);
    }
    // Not present: only longer links that start with them.
    expect(lacks('https://example.com/12 https://example.com/about')).toEqual([
      'https://example.com/1',
      'https://example.com/',
    ]);
    expect(lacks('https://example.com/1.html https://example.com/?utm=1')).toEqual([
      'https://example.com/1',
      'https://example.com/',
    ]);
  });
});

describe('compatibility', () => {
  it('errs on a feature a target does not support, naming the clients and linking caniemail', () => {
    const c = run(email('<div style="display:flex"><p>One</p><p>Two</p></div>')).compatibility;
    const f = only(c, 'error', /display:flex|flex/i);
    expect(f.message).toContain('Outlook (Windows, classic)');
    expect(f.hint).toContain('https://www.caniemail.com/features/css-display-flex/');
    expect(f.line).toBe(1);
    expect(c.status).toBe('error');
  });
  it('scores only the chosen targets', () => {
    const html = email('<div style="display:flex"><p>One</p></div>');
    expect(run(html, {}, ['apple-mail-macos', 'apple-mail-ios']).compatibility.status).toBe('pass');
  });
  it('warns on partial support', () => {
    const c = run(email('<p style="max-width:600px">x</p>'), {}, ['outlook-windows']).compatibility;
    only(c, 'warning', /max-width/);
  });
  it('does not report a background image with a colour fallback as an error', () => {
    const bare = run(email('<td style="background-image:url(https://e.com/a.jpg)">x</td>')).compatibility;
    only(bare, 'error', /background-image/);
    const withColour = run(
      email('<td bgcolor="#123456" style="background-image:url(https://e.com/a.jpg)">x</td>'),
    ).compatibility;
    expect(problems(withColour)).toEqual([]);
    expect(withColour.findings.some((f) => f.severity === 'info' && /background-image/.test(f.message))).toBe(
      true,
    );
  });
  it('does not score a <style> rule that hides what it selects (the preheader idiom), as for a hidden element', () => {
    const idiom =
      'display:none; visibility:hidden; mso-hide:all; max-height:0; max-width:0; opacity:0; overflow:hidden';
    const hidden = run(email('<p>x</p>', `<style>.preheader { ${idiom} }</style>`)).compatibility;
    expect(problems(hidden)).toEqual([]);
    // The same declarations on a shown element's rule are scored.
    const shown = run(
      email('<p class="faded">x</p>', '<style>.faded { max-height:40px; opacity:0.5 }</style>'),
    ).compatibility;
    only(shown, 'error', /opacity/);
    only(shown, 'error', /max-height/);
  });
  it("gives min-width and max-width the ghost table as classic Outlook's fallback", () => {
    const hybrid = (ghost: string) =>
      email(
        `${ghost}<div style="display:inline-block; min-width:200px; max-width:290px"><p>Column</p></div>`,
      );
    const withGhost = run(
      hybrid('<!--[if mso]><table role="presentation"><tr><td width="290"><![endif]-->'),
      {},
      ['outlook-windows'],
    ).compatibility;
    expect(problems(withGhost)).toEqual([]);
    expect(withGhost.findings.filter((f) => f.severity === 'info').map((f) => f.message)).toEqual([
      expect.stringMatching(/^min-width/),
      expect.stringMatching(/^max-width/),
    ]);
    const without = run(hybrid(''), {}, ['outlook-windows']).compatibility;
    only(without, 'error', /min-width/);
  });
  it('takes max-width on a <table> as supported where caniemail says it only works there', () => {
    const on = (tag: string) => email(`<${tag} style="max-width:560px">x</${tag}>`);
    expect(problems(run(on('table'), {}, ['outlook-windows', 'outlook-windows-new']).compatibility)).toEqual(
      [],
    );
    only(run(on('div'), {}, ['outlook-windows']).compatibility, 'warning', /max-width/);
  });
  it('names the use that does not work: a <div> after a <table> whose max-width works in classic Outlook', () => {
    const html = email(
      '<table role="presentation" style="max-width:560px"><tr><td>x</td></tr></table>\n\n<div style="max-width:560px">y</div>',
    );
    const f = only(run(html, {}, ['outlook-windows']).compatibility, 'warning', /max-width/);
    expect(f.line).toBe(3);
    expect(f.element).toMatch(/^<div/);
  });
  it("takes a declaration that sets a property back to its initial value for no use (MJML's navbar, a reset)", () => {
    const resets = run(
      email(
        '<p style="box-shadow:none; position:static; max-width:none; min-width:0; opacity:1">x</p>',
        '<style>noinput.mj-menu-checkbox { display:block!important; max-height:none!important }</style>',
      ),
      {},
      ['outlook-windows', 'outlook-windows-new', 'gmail-web', 'yahoo-web'],
    ).compatibility;
    expect(resets.findings).toEqual([]);
    // The same properties set to something are scored.
    const set = run(email('<p style="max-height:40px">x</p>'), {}, ['outlook-windows']).compatibility;
    only(set, 'error', /max-height/);
  });
  it('scores box-sizing on an element only where it changes the box: a size with padding or a border', () => {
    const targets: TargetClientId[] = ['outlook-windows'];
    const on = (style: string, attrs = '') =>
      run(
        email(
          `<a href="https://e.com/go"${attrs} style="box-sizing:border-box; ${style}">Go to the shop</a>`,
        ),
        {},
        targets,
      ).compatibility;
    // Postmark's button: borders, no size.
    expect(on('border-top:10px solid #3869d4; display:inline-block').findings).toEqual([]);
    // A size without padding or border is the same size either way.
    expect(on('width:200px').findings).toEqual([]);
    only(on('width:200px; padding:10px'), 'error', /box-sizing/);
    only(on('border:1px solid #000', ' width="200"'), 'error', /box-sizing/);
    expect(on('width:200px; padding:0; border:0').findings).toEqual([]);
  });
  it('scores box-sizing in a <style> rule by the boxes of the elements it selects', () => {
    const boxes = (body: string, css: string, targets: TargetClientId[]) =>
      run(email(body, `<style>${css}</style>`), {}, targets).compatibility;
    // Postmark's button: borders, and a width only in its phone query, which classic Outlook does not read.
    const button =
      '.button { display:inline-block; border:10px solid #3869d4; box-sizing:border-box }' +
      ' @media only screen and (max-width:500px) { .button { width:100% !important } }';
    const link = '<a class="button" href="https://e.com/go">Go to the shop</a>';
    expect(problems(boxes(link, button, ['outlook-windows']))).toEqual([]);
    expect(only(boxes(link, button, ['outlook-windows', 'yahoo-web']), 'error', /box-sizing/).message).toBe(
      'box-sizing is not supported in Yahoo Mail (web).',
    );
    // A universal rule changes the box of an element with a width attribute and padding from another rule.
    const universal = '* { box-sizing:border-box } .cell { padding:20px }';
    only(
      boxes('<table role="presentation"><tr><td class="cell" width="300">x</td></tr></table>', universal, [
        'outlook-windows',
      ]),
      'error',
      /box-sizing/,
    );
    expect(
      boxes('<table role="presentation"><tr><td class="cell">x</td></tr></table>', universal, [
        'outlook-windows',
      ]).findings,
    ).toEqual([]);
    // A rule that selects nothing changes nothing; one css-select cannot read is still a use.
    expect(
      boxes('<p>x</p>', '.b { box-sizing:border-box; width:10px; padding:2px }', ['outlook-windows'])
        .findings,
    ).toEqual([]);
    only(
      boxes('<p>x</p>', 'p:unknown-state { box-sizing:border-box }', ['outlook-windows']),
      'error',
      /box-sizing/,
    );
    // css-select backtracks over descendant combinators: over 500 nested boxes this selector would
    // take minutes. The matches stop at the document's step budget, and the rule stays a use.
    const deep = `${'<div>'.repeat(500)}${'<b>x</b>'.repeat(20)}${'</div>'.repeat(500)}`;
    only(
      boxes(deep, 'section div div div b { box-sizing:border-box }', ['outlook-windows']),
      'error',
      /box-sizing/,
    );
    // 4,800 universal rules over 100 elements: a judge that copied what each rule gives each
    // element, and read all of it for every rule, took 54 s. What the judges read is paid from the
    // document's budget; past it the rule stays a use.
    const many = '*{box-sizing:border-box;width:1px;padding:1px}'.repeat(4800);
    only(boxes('<i></i>'.repeat(100), many, ['outlook-windows']), 'error', /box-sizing/);
  });
  it('gives an inlined box-sizing the verdict of its <style> rule: the sizes the sheets give the element count', () => {
    const targets: TargetClientId[] = ['outlook-windows', 'yahoo-web'];
    const phone =
      '<style>@media only screen and (max-width:500px) { .button { width:100% !important } }</style>';
    // Postmark's button as the inliner leaves it: its rule in the style attribute, its phone query kept.
    const inlined = email(
      '<a class="button" href="https://e.com/go" style="box-sizing:border-box; border:10px solid #3869d4; display:inline-block">Go to the shop</a>',
      phone,
    );
    expect(only(run(inlined, {}, targets).compatibility, 'error', /box-sizing/).message).toBe(
      'box-sizing is not supported in Yahoo Mail (web).',
    );
    // A width from outside the query reaches classic Outlook too; no width anywhere, no box changed.
    const everywhere = inlined.replace(phone, '<style>.button { width:200px }</style>');
    expect(only(run(everywhere, {}, targets).compatibility, 'error', /box-sizing/).message).toContain(
      'Outlook (Windows, classic)',
    );
    expect(run(inlined.replace(phone, ''), {}, targets).compatibility.findings).toEqual([]);
  });
  it('does not score a client-targeting rule: it matches only in the client it was written for', () => {
    const gmailDark =
      'u + .body .gmail-blend-screen { background:#000; mix-blend-mode:screen }' +
      ' div > u + .body .gmail-blend-screen, body u ~ div .g { mix-blend-mode:difference }' +
      ' [class~="x_gmail-blend-screen"] { opacity:0.9 }' +
      ' [data-ogsc] .dark-img { display:block !important; opacity:0.9 }';
    const c = run(
      email('<div class="gmail-blend-screen">x</div>', `<style>${gmailDark}</style>`),
    ).compatibility;
    expect(c.findings).toEqual([]);
    // The same declarations under a selector every client matches are scored.
    only(
      run(email('<div class="blend">x</div>', '<style>.body .blend { mix-blend-mode:screen }</style>'))
        .compatibility,
      'error',
      /mix-blend-mode/,
    );
  });
  it('takes <picture> with its own <img> as the fallback a client that drops the element shows', () => {
    const source = '<source srcset="https://e.com/a.webp" type="image/webp">';
    const withImg = run(
      email(`<picture>${source}<img src="https://e.com/a.png" width="600" alt="Sale banner"></picture>`),
    ).compatibility;
    expect(problems(withImg)).toEqual([]);
    expect(withImg.findings.some((f) => f.severity === 'info' && /<picture>/.test(f.message))).toBe(true);
    only(run(email(`<picture>${source}</picture>`)).compatibility, 'error', /<picture>/);
    // An <img> deeper inside shows in every client too.
    const nested = run(
      email(
        `<picture>${source}<span><img src="https://e.com/a.png" width="600" alt="Sale"></span></picture>`,
      ),
    ).compatibility;
    expect(problems(nested)).toEqual([]);
  });
  it("takes a min-/max- limit the element's own size already keeps for no problem", () => {
    const targets: TargetClientId[] = ['outlook-windows'];
    const kept = (html: string) => {
      const c = run(email(html), {}, targets).compatibility;
      expect(problems(c), JSON.stringify(c.findings)).toEqual([]);
      expect(c.findings.length).toBeGreaterThan(0);
    };
    kept(
      '<table role="presentation" width="600" style="width:600px; min-width:600px"><tr><td>x</td></tr></table>',
    );
    kept(
      '<img src="https://e.com/s.gif" alt="" width="600" height="1" style="max-height:1px; min-height:1px">',
    );
    kept('<table role="presentation" width="600" style="min-width:240px"><tr><td>x</td></tr></table>');
    expect(
      problems(
        run(`<html lang="en" style="min-height:100%">${email('<p>x</p>').slice(31)}`, {}, targets)
          .compatibility,
      ),
    ).toEqual([]);
    const rule = email('<p>x</p>', '<style>html, body { min-height:100%; min-width:100% }</style>');
    expect(problems(run(rule, {}, targets).compatibility)).toEqual([]);
    // A limit beyond the size, or in another unit, is a limit the client drops.
    only(
      run(
        email('<table role="presentation" width="600" style="min-width:700px"><tr><td>x</td></tr></table>'),
        {},
        targets,
      ).compatibility,
      'error',
      /min-width/,
    );
    only(
      run(
        email('<table role="presentation" width="100%" style="min-width:600px"><tr><td>x</td></tr></table>'),
        {},
        targets,
      ).compatibility,
      'error',
      /min-width/,
    );
    // The error names the use without the fallback, not the first use.
    const two = run(
      email(
        '<table role="presentation" width="600" style="min-width:600px"><tr><td>x</td></tr></table>\n<div style="min-width:300px">y</div>',
      ),
      {},
      targets,
    ).compatibility;
    expect(only(two, 'error', /min-width/).element).toMatch(/^<div/);
  });
  it("judges a <style> rule's min-/max- limit by the sizes of the elements it selects", () => {
    const targets: TargetClientId[] = ['outlook-windows'];
    const compat = (body: string, css: string) =>
      run(email(body, `<style>${css}</style>`), {}, targets).compatibility;
    const kept = (body: string, css: string) => {
      const c = compat(body, css);
      expect(problems(c), JSON.stringify(c.findings)).toEqual([]);
      expect(c.findings.length).toBeGreaterThan(0);
    };
    const table = (attrs: string) => `<table role="presentation" ${attrs}><tr><td>x</td></tr></table>`;
    // leemunroe's button: the rule's own width keeps its minimum.
    kept(table('class="btn"'), '.btn { box-sizing: border-box; min-width: 100% !important; width: 100%; }');
    // sendwithus' zen: the selected table's width attribute keeps both limits.
    kept(table('class="wrap" width="600"'), '.wrap { max-width: 600px; min-width: 240px; margin: 0 auto; }');
    // Sizes from other rules count, and a phone query's only where media queries are read: classic
    // Outlook keeps the 600 px that a phone query makes 100 %.
    kept(
      table('class="wrap"'),
      '.wrap { min-width: 600px } table.wrap { width: 600px } @media (max-width: 600px) { .wrap { width: 100% !important } }',
    );
    // Foundation's <center> around its 580 px container: the content keeps the minimum, and the
    // <center> paints nothing.
    const center = `<center>${table('class="container"')}</center>`;
    kept(center, 'center { width: 100%; min-width: 580px } table.container { width: 580px }');
    kept(`<center>${table('width="600"')}</center>`, 'center { width: 100%; min-width: 580px }');

    /** The limit stays an error for classic Outlook. */
    const refused = (body: string, css: string) => only(compat(body, css), 'error', /min-width/);
    // Any element the rule selects that the limit would change keeps the error.
    refused(table('class="wrap" width="600"') + table('class="wrap"'), '.wrap { min-width: 240px }');
    // A size another rule gives, smaller than the minimum, wins or may win.
    refused(table('class="wrap" width="600"'), '.wrap { min-width: 240px } table { width: 50% }');
    // A phone query's width makes a max-width matter only where media queries are read; classic
    // Outlook, the client here that ignores the limit, reads none.
    kept(
      table('class="w" width="600"'),
      '.w { max-width: 600px } @media (max-width: 600px) { .w { width: 100% !important } }',
    );
    // Content narrower than the minimum, content that shrinks, or a box that paints: an error.
    refused(`<center>${table('width="400"')}</center>`, 'center { min-width: 580px }');
    refused(`<center>${table('width="600" style="max-width:100%"')}</center>`, 'center { min-width: 580px }');
    refused(`<center>${table('width="600"')}</center>`, 'center { min-width: 580px; background: #eee }');
    refused(
      `<center>${table('width="600"')}</center>`,
      'center { min-width: 580px } center { background: #eee }',
    );
    refused(
      `<center>${table('class="c" width="600"')}</center>`,
      'center { min-width: 580px } .c { display: none }',
    );
    refused(`<center><p>x</p></center>`, 'center { min-width: 580px }');
    // A rule that selects nothing limits nothing: Foundation's CSS in an email without a <center>.
    expect(compat(table('width="600"'), 'center { width: 100%; min-width: 580px }').findings).toEqual([]);
    // 30 rules of 2,600 widths over 14,000 elements: each element is given 78,000 declarations,
    // which gathered for every element exhausted the heap. Past the budget a limit stays a use.
    const widths = `*{${'width:1px;'.repeat(2600)}min-width:2px}`.repeat(30);
    refused('<i></i>'.repeat(14_000), widths);
  });
  it("takes max-width:100% on a box of its content's width, and a fixed-width image's max-width, for no problem", () => {
    const targets: TargetClientId[] = ['outlook-windows'];
    const kept = (html: string) => expect(problems(run(email(html), {}, targets).compatibility)).toEqual([]);
    kept('<a href="https://e.com/track" style="display:block; max-width:100%">Track your order</a>');
    kept('<img src="https://e.com/l.png" width="165" alt="Acme" style="width:165px; max-width:80%">');
    // The reset in a <style> block, where every image has a fixed width; not where one is fluid.
    const reset = '<style>img { max-width: 600px; }</style>';
    const fixed = '<img src="https://e.com/a.png" width="300" alt="A">';
    expect(problems(run(email(fixed, reset), {}, targets).compatibility)).toEqual([]);
    const fluid = '<img src="https://e.com/b.png" width="100%" alt="B">';
    // The usual fix is named: classic Outlook sizes an image by its width attribute.
    expect(
      only(run(email(fixed + fluid, reset), {}, targets).compatibility, 'warning', /max-width/).hint,
    ).toMatch(
      /^Classic Outlook shows images at their files' width: give each image a width attribute in pixels/,
    );
    const resetOf = (selector: string) => `<style>${selector} { max-width: 600px; }</style>`;
    const inCell = `<table role="presentation"><tr><td class="content">${fluid.replace('<img', '<img class="hero"')}</td></tr></table>`;
    for (const selector of ['td img', 'img.hero', '.content > img'])
      expect(
        only(run(email(inCell, resetOf(selector)), {}, targets).compatibility, 'warning', /max-width/).hint,
      ).toMatch(/give each image a width attribute/);
    // A box of a set width, or an image sized in % of its column, is held in by max-width.
    expect(
      only(
        run(email('<div style="width:700px; max-width:100%">x</div>'), {}, targets).compatibility,
        'warning',
        /max-width/,
      ).hint,
    ).toMatch(/^Test it in these clients/);
    expect(
      only(
        run(email(fluid.replace('<img', '<img class="x"'), resetOf('.x')), {}, targets).compatibility,
        'warning',
        /max-width/,
      ).hint,
    ).toMatch(/^Test it in these clients/);
    only(
      run(
        email('<img src="https://e.com/l.png" alt="Acme" style="width:100%; max-width:600px">'),
        {},
        targets,
      ).compatibility,
      'warning',
      /max-width/,
    );
  });
  it('takes hyphenation for the enhancement it is: text without it reads the same', () => {
    const c = run(email('<p style="hyphens:auto">A long paragraph of words.</p>')).compatibility;
    expect(problems(c)).toEqual([]);
    expect(c.findings.some((f) => f.severity === 'info' && /hyphens/.test(f.message))).toBe(true);
  });
  it("takes a max-width its parent's fixed width keeps, and a button table's min-width, for no problem", () => {
    const targets: TargetClientId[] = ['outlook-windows'];
    const compat = (html: string, head = '') => run(email(html, head), {}, targets).compatibility;
    const kept = (html: string, head = '') => {
      const c = compat(html, head);
      expect(problems(c), JSON.stringify(c.findings)).toEqual([]);
      expect(c.findings.length).toBeGreaterThan(0);
    };
    // leemunroe's content box in its 600 px cell, inline and from a <style> rule.
    const cell = (div: string, width = 'width="600"') =>
      `<table role="presentation"><tr><td ${width}>${div}</td></tr></table>`;
    kept(cell('<div style="max-width:600px; margin:0 auto">x</div>'));
    kept(
      cell('<div class="content">x</div>', 'style="width:580px"'),
      '<style>.content { max-width:600px }</style>',
    );
    // A wider or fluid parent, or an image (as wide as its file), is not kept.
    only(compat(cell('<div style="max-width:600px">x</div>', 'width="640"')), 'warning', /max-width/);
    only(compat(cell('<div style="max-width:600px">x</div>', 'width="100%"')), 'warning', /max-width/);
    only(
      compat(cell('<img src="https://e.com/a.png" alt="A" style="max-width:600px">')),
      'warning',
      /max-width/,
    );
    // konsav's button: a table of no width whose only content is a label.
    const button = (label: string) =>
      `<table role="presentation" align="center" style="max-width:240px; min-width:120px"><tr><td bgcolor="#0B5073" style="padding:12px 24px">${label}</td></tr></table>`;
    kept(button('<a href="https://e.com/go" style="color:#ffffff">Explore <b>templates</b></a>'));
    // A table with a width, with a layout inside, with text but no link, or with two links keeps
    // its minimum only by the fallbacks above.
    const link = '<a href="https://e.com/go">Explore</a>';
    only(compat(button(`<div>${link}</div>`)), 'error', /min-width/);
    only(compat(button('Explore')), 'error', /min-width/);
    only(compat(button(`${link} ${link}`)), 'error', /min-width/);
    only(
      compat(button(link).replace('style="max-width', 'width="100%" style="max-width')),
      'error',
      /min-width/,
    );
  });
  it("gives a fluid image's max-width its width attribute as classic Outlook's fallback", () => {
    const image = (width: string) =>
      email(`<img src="https://e.com/a.png" alt="A"${width} style="width:100%; max-width:600px">`);
    expect(problems(run(image(' width="600"'), {}, ['outlook-windows']).compatibility)).toEqual([]);
    expect(only(run(image(''), {}, ['outlook-windows']).compatibility, 'warning', /max-width/).hint).toMatch(
      /^Classic Outlook shows this image at its file's width: give it a width attribute in pixels \(width="600"\)\. See https/,
    );
    // Named beside another client, the hint still gives classic Outlook's fix.
    expect(
      only(run(image(''), {}, ['yahoo-web', 'outlook-windows']).compatibility, 'warning', /max-width/).hint,
    ).toMatch(/^Classic Outlook/);
  });
  it("takes an @import of a web font's style sheet for the enhancement it is, not another style sheet", () => {
    const font = run(
      email('<p>x</p>', '<style>@import url("https://fonts.googleapis.com/css?family=Nunito+Sans");</style>'),
    ).compatibility;
    expect(problems(font)).toEqual([]);
    expect(font.findings.some((f) => f.severity === 'info' && /@import/.test(f.message))).toBe(true);
    const layout = run(
      email('<p>x</p>', '<style>@import url("https://e.com/layout.css");</style>'),
    ).compatibility;
    only(layout, 'error', /@import/);
  });
  it("takes background-size after a background shorthand that sets the size for its fallback (MJML's sections)", () => {
    const sized = (background: string) =>
      run(
        email(
          `<div style="background:url('https://e.com/a.jpg') ${background};background-size:cover"><p>x</p></div>`,
        ),
      ).compatibility.findings.filter((f) => f.severity !== 'info' && /background-size/.test(f.message));
    expect(sized('center top / cover no-repeat')).toEqual([]);
    // Without a size in the shorthand, the longhand is all Gmail has to ignore.
    expect(sized('center top no-repeat')).not.toEqual([]);
  });
  it('treats border-radius and media queries as enhancements', () => {
    const c = run(
      email(
        '<a href="https://e.com" style="border-radius:6px">Go to the shop</a>',
        '<style>@media (max-width:600px){.x{width:100%!important}}</style>',
      ),
    ).compatibility;
    expect(problems(c)).toEqual([]);
  });
  it('names only the clients whose partial support concerns the value used, with their own notes', () => {
    const targets: TargetClientId[] = ['apple-mail-macos', 'outlook-com', 'yahoo-web'];
    const position = (value: string) =>
      only(
        run(email(`<div style="position:${value}">x</div>`), {}, targets).compatibility,
        'warning',
        /position/,
      ).message;
    // Outlook.com supports sticky, Apple Mail relative and absolute, Yahoo relative.
    expect(position('sticky')).toBe(
      'position is only partly supported.' +
        ' Apple Mail (macOS): Supports relative, absolute but not sticky and fixed.' +
        ' Yahoo Mail (web): Supports relative but not absolute, sticky and fixed.',
    );
    expect(position('fixed')).toBe(
      'position is only partly supported.' +
        ' Apple Mail (macOS): Supports relative, absolute but not sticky and fixed.' +
        ' Outlook.com: Supports sticky but not relative, absolute and fixed.' +
        ' Yahoo Mail (web): Supports relative but not absolute, sticky and fixed.',
    );
    // A relative box anchors an absolute one inside it: Apple Mail supports both.
    const anchored = run(
      email('<div style="position:relative"><span style="position:absolute">x</span></div>'),
      {},
      targets,
    ).compatibility;
    expect(only(anchored, 'warning', /position/).message).toBe(
      'position is only partly supported.' +
        ' Outlook.com: Supports sticky but not relative, absolute and fixed.' +
        ' Yahoo Mail (web): Supports relative but not absolute, sticky and fixed.',
    );
    // Yahoo drops the comma of a multiple background: one image is fine there.
    const background = (value: string) =>
      run(email(`<td style="background-image:${value}">x</td>`), {}, ['yahoo-web']).compatibility;
    expect(background('url(https://e.com/a.png)').findings).toEqual([]);
    expect(
      only(background('url(https://e.com/a.png), url(https://e.com/b.png)'), 'warning', /background/).message,
    ).toBe(
      'background-image is only partly supported in Yahoo Mail (web). Does not support multiple values. The comma between two values is removed.',
    );
    const radius = (value: string) =>
      run(email(`<a href="https://e.com" style="border-radius:${value}">Go to the shop</a>`), {}, [
        'yahoo-web',
      ]).compatibility.findings;
    expect(radius('6px')).toEqual([]);
    expect(radius('27% 73% / 30% 34%')).toHaveLength(1);
  });
  it('takes what changes nothing where it is ignored for no use: a lone position: relative, a declaration after its fallback', () => {
    const targets: TargetClientId[] = ['gmail-web', 'outlook-windows'];
    const compat = (body: string, css = '') =>
      run(email(body, css && `<style>${css}</style>`), {}, targets).compatibility;
    // Foundation's `table.row { position: relative }`: nothing in the email is positioned absolutely.
    expect(
      compat(
        '<table class="row" role="presentation"><tr><td>x</td></tr></table>',
        'table.row { position: relative }',
      ).findings,
    ).toEqual([]);
    expect(compat('<div style="position:relative">x</div>').findings).toEqual([]);
    only(
      compat('<div style="position:relative"><span style="position:absolute">x</span></div>'),
      'error',
      /^position/,
    );
    // The Email Markup Consortium's font size: px first, then what newer clients read.
    const font = compat('<div style="font-size:16px; font-size:1rem; font-size:max(16px, 1rem)">Hello</div>');
    expect(problems(font)).toEqual([]);
    expect(font.findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/^rem unit is not fully supported in .*degrades gracefully/),
      expect.stringMatching(/^max\(\) is not fully supported in .*degrades gracefully/),
    ]);
    only(compat('<div style="font-size:max(16px, 1rem)">Hello</div>'), 'error', /^max\(\)/);
    expect(problems(compat('<div class="f">Hello</div>', '.f { display: block; display: flex }'))).toEqual(
      [],
    );
    // Counted in one pass: 60,000 declarations of one property (a 1 MB style) are 60,000 steps, not
    // 1.8 billion (the check froze for minutes when each looked back at all before it).
    const many = compat(`<div style="${'font-size:max(16px,1rem);'.repeat(60_000)}">Hello</div>`);
    only(many, 'error', /^max\(\)/);
  });
  it('reads a media query for what the clients support of it', () => {
    const targets: TargetClientId[] = ['gmail-web', 'outlook-windows', 'outlook-com', 'yahoo-web'];
    const named = (css: string) =>
      only(run(email('<p>x</p>', `<style>${css}</style>`), {}, targets).compatibility, 'info', /@media/)
        .message;
    const usual = '@media only screen and (max-width:600px){.x{width:100%!important}}';
    expect(named(usual)).toBe(
      '@media is not fully supported in Outlook (Windows, classic); the email degrades gracefully or carries a fallback there.',
    );
    // Gmail does not read height queries, Yahoo only screen, width and height ones.
    expect(named('@media (max-height:500px){.x{display:none}}')).toContain(
      'Gmail (web), Outlook (Windows, classic);',
    );
    expect(named('@media (min-device-width:375px){.x{display:none}}')).toContain(
      'Outlook (Windows, classic), Yahoo Mail (web);',
    );
    // Outlook.com removes a media query nested in another.
    expect(named('@media screen{@media (max-width:600px){.x{display:none}}}')).toContain(
      'Outlook (Windows, classic), Outlook.com;',
    );
  });
  it('passes an interactive pseudo-class on a type selector in Outlook.com, not on a class', () => {
    const pseudo = (css: string) =>
      run(email('<p><a href="https://e.com" class="b">Shop the sale</a></p>', `<style>${css}</style>`), {}, [
        'outlook-com',
      ]).compatibility.findings;
    expect(pseudo('a:hover{color:red}')).toEqual([]);
    expect(pseudo('.b:hover{color:red}')).toHaveLength(1);
  });
  it("takes MJML's carousel, which stops its images being selected, for an enhancement", () => {
    const carousel = email(
      '<div class="mj-carousel">x</div>',
      '<style>.mj-carousel { -webkit-user-select: none; -moz-user-select: none; user-select: none; }</style>',
    );
    const c = run(carousel).compatibility;
    expect(problems(c)).toEqual([]);
    expect(c.findings.map((f) => f.message)).toEqual([
      expect.stringMatching(/^user-select is not fully supported in .*; the email degrades gracefully/),
    ]);
  });
  it('reads the style of a VML shape as VML, not as CSS', () => {
    // MJML's hero: the background image for classic Outlook, laid behind the content by VML.
    const hero = email(
      '<!--[if mso]><v:image xmlns:v="urn:schemas-microsoft-com:vml" src="https://e.com/hero.jpg"' +
        ' style="border:0;mso-position-horizontal:center;position:absolute;top:0;width:600px;z-index:-3;" /><![endif]-->' +
        '<table role="presentation" width="600"><tr><td bgcolor="#222222">Spring is here</td></tr></table>',
    );
    expect(run(hero, {}, ['outlook-windows']).compatibility.findings).toEqual([]);
    // The same declarations on an HTML element are scored.
    const div = email('<!--[if mso]><div style="position:absolute;top:0;z-index:-3">x</div><![endif]-->');
    only(run(div, {}, ['outlook-windows']).compatibility, 'error', /^position/);
  });
  it('counts code inside <!--[if mso]> for classic Outlook only, and <!--[if !mso]><!--> for every other client', () => {
    const msoOnly = email('<!--[if mso]><div style="display:flex">x</div><![endif]-->');
    const f = only(run(msoOnly).compatibility, 'error', /flex/i);
    expect(f.message).toBe('display:flex is not supported in Outlook (Windows, classic).');
    // Nobody else sees it: for the other targets it is as if it were not there.
    expect(run(msoOnly, {}, ['gmail-web', 'outlook-com']).compatibility.status).toBe('pass');

    const notMso = email('<!--[if !mso]><!--><div style="display:flex">x</div><!--<![endif]-->');
    // The others support it (Gmail's apps only with a Google account).
    const g = only(run(notMso).compatibility, 'warning', /flex/i);
    expect(g.message).not.toContain('Outlook (Windows, classic)');
    expect(run(notMso, {}, ['outlook-windows']).compatibility.status).toBe('pass');
  });
});

describe('where the HTML holds text no client shows', () => {
  it('finds what the former regular expression found, in one pass over unclosed comments', () => {
    const former = (html: string) => {
      const ranges: [number, number][] = [];
      for (const m of html.matchAll(
        /<!--(?!\[if|-?>)[\s\S]*?-->|<style\b[^>]*>[\s\S]*?(?:<\/style\s*>|$)/gi,
      )) {
        if (m[0].startsWith('<!--')) ranges.push([m.index, m.index + m[0].length]);
        else
          for (const c of m[0].matchAll(/\/\*[\s\S]*?(?:\*\/|$)/g))
            ranges.push([m.index + c.index, m.index + c.index + c[0].length]);
      }
      return ranges;
    };
    const pieces = [
      '<!--',
      '-->',
      '<!--[if mso]>',
      '<![endif]-->',
      '<!-->',
      '<!--->',
      '<style>',
      '<STYLE media="x">',
      '</style>',
      '/*',
      '*/',
      'a',
      '{{x}}',
      '>',
      '-',
    ];
    let seed = 11;
    for (let n = 0; n < 3_000; n++) {
      let html = '';
      for (let i = 0; i < 10; i++) {
        seed = (seed * 48271) % 2147483647;
        html += pieces[seed % pieces.length];
      }
      expect(unseenRanges(html), JSON.stringify(html)).toEqual(former(html));
    }
    // 200,000 comments never closed (1 MB): minutes for the former expression.
    expect(unseenRanges('<!--x'.repeat(200_000))).toEqual([]);
  });
});

describe('the HTML tree', () => {
  it('knows who sees each element and the line it starts on', () => {
    const doc = parseHtml(
      '<p>a</p>\n<!--[if mso]>\n<table><tr><td>ghost</td></tr></table>\n<![endif]-->\n<!--[if !mso]><!-->\n<div>modern</div>\n<!--<![endif]-->\n<!--[if IE]><span>old</span><![endif]-->',
    );
    const by = (name: string) => doc.elements.find((e) => e.name === name)!;
    expect(by('p').audience).toBe('all');
    expect(by('table').audience).toBe('outlook');
    expect(doc.line(by('table').start)).toBe(3);
    expect(by('div').audience).toBe('not-outlook');
    expect(doc.line(by('div').start)).toBe(6);
    expect(doc.elements.some((e) => e.name === 'span')).toBe(false);
    expect(doc.hasMsoContent).toBe(true);
  });
  it("reads MJML's downlevel-revealed `<!--[if !mso | IE]><!-->` as hidden from classic Outlook", () => {
    const doc = parseHtml(
      '<!--[if !mso | IE]><!--><img src="https://e.com/more.png" alt="+"><!--<![endif]-->\n' +
        '<!--[if mso | IE]><table><tr><td>ghost</td></tr></table><![endif]-->\n' +
        '<!--[if lte mso 11]><p>Outlook 2003</p><![endif]-->',
    );
    expect(doc.elements.find((e) => e.name === 'img')!.audience).toBe('not-outlook');
    expect(doc.elements.find((e) => e.name === 'table')!.audience).toBe('outlook');
    expect(doc.elements.some((e) => e.name === 'p')).toBe(false);
    // Stripo's and Litmus' form of the same.
    const stripo = parseHtml('<!--[if !mso]><!-- --><div>modern</div><!--<![endif]-->');
    expect(stripo.elements.find((e) => e.name === 'div')!.audience).toBe('not-outlook');
  });
  it('reads conditional comments nested a few deep, and deeper ones as comments, however many there are', () => {
    const nested = parseHtml('<!--[if mso]><b>1</b><!--[if mso]><i>2</i><![endif]--><![endif]-->');
    expect(nested.elements.map((e) => [e.name, e.audience])).toEqual([
      ['b', 'outlook'],
      ['i', 'outlook'],
    ]);
    // 20,000 unclosed ones (260 KB) overflowed the stack, each level parsed from a copy of the rest.
    const flood = parseHtml(`<p>Hello</p>${'<!--[if mso]><u>x</u>'.repeat(20_000)}`);
    expect(flood.elements.filter((e) => e.name === 'u')).toHaveLength(4);
    expect(run(`<p>Hello</p>${'<!--[if mso]>'.repeat(20_000)}`).compatibility.status).toBeDefined();
  });
});

describe('clean, well-built emails', () => {
  const dir = path.join(import.meta.dirname, '../../../tests/fixtures/clean-emails');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.html'));
  it.each(files)('%s has no error-level finding', (file) => {
    const html = fs.readFileSync(path.join(dir, file), 'utf8');
    const checks = run(html, { subject: 'A good subject line' });
    const errors = Object.values(checks).flatMap((c) =>
      c.findings.filter((f) => f.severity === 'error').map((f) => `${c.id}: ${f.message}`),
    );
    expect(errors).toEqual([]);
  });
  it('has at least three of them', () => expect(files.length).toBeGreaterThanOrEqual(3));
});
