import { describe, expect, it } from 'vitest';
import {
  DEFAULT_TARGET_CLIENTS,
  type Check,
  type Finding,
  type TargetClientId,
} from '../../shared/contract/checks.ts';
import { textFromHtml } from '../mail/text-part.ts';
import { inlineCss } from '../prepare/inline-css.ts';
import { settersOf } from './media-overrides.ts';
import { runStaticChecks } from './static-checks.ts';

/**
 * A media query's rule that the element's own style attribute overrides (media-overrides.ts,
 * docs/decisions/0063-pre-send-checklist.md), reported by the compatibility check.
 */

/** A well-formed email around `body`, with `css` in its `<style>` block. */
function email(body: string, css: string): string {
  return (
    `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Hello</title>\n<style>\n${css}\n</style>\n</head>` +
    `<body><div style="display:none; max-height:0; overflow:hidden; mso-hide:all;">A short summary.</div>\n` +
    `${body}\n<p><a href="https://example.com/unsubscribe">Unsubscribe</a></p></body></html>`
  );
}

function compatibility(html: string, targets: readonly TargetClientId[] = DEFAULT_TARGET_CLIENTS): Check {
  const checks = runStaticChecks(
    { html, text: textFromHtml(html), subject: 'Spring sale', bytes: { message: 20_000 }, headers: [] },
    targets,
  );
  return checks.find((c) => c.id === 'compatibility')!;
}

const NEVER_APPLIES = /^A rule in @/;
const overridden = (html: string, targets?: readonly TargetClientId[]): Finding[] =>
  compatibility(html, targets).findings.filter((f) => NEVER_APPLIES.test(f.message));

describe('a media query rule that a style attribute overrides', () => {
  it('is reported after Inline CSS: the responsive override the inliner left behind never applies', () => {
    const source = email(
      '<p class="lead">Hello there.</p>',
      'p { color: #222222; font-size: 18px }\n@media screen and (max-width:600px) {\n  p { font-size: 16px }\n}',
    );
    const { html } = inlineCss(source);
    expect(html).toContain('style="color: #222222;font-size: 18px;"');
    const [found, ...more] = overridden(html);
    expect(more).toEqual([]);
    expect(found).toEqual({
      severity: 'warning',
      message:
        'A rule in @media screen and (max-width:600px) sets font-size on "p" without !important, but the ' +
        "element's style attribute sets font-size too: a style attribute wins over any rule without " +
        '!important, so the rule never applies to it.',
      hint: "Add !important to the rule's font-size (font-size: … !important), as responsive and dark-mode rules need wherever styles are inline.",
      line: html.split('\n').findIndex((l) => l.includes('p { font-size: 16px }')) + 1,
      element: '<p class="lead" style="color: #222222;font-size: 18px;">',
    });
    expect(compatibility(html).status).toBe('warning');
    // As written (not inlined), nothing overrides the rule.
    expect(overridden(source)).toEqual([]);
  });

  it('is reported for a dark-mode rule, and only where the style attribute sets the property', () => {
    const html = email(
      '<table role="presentation" class="card" style="background-color:#ffffff"><tr><td class="text" style="color:#111111">Hi</td></tr></table>' +
        '<div class="card">Plain</div>',
      '@media (prefers-color-scheme: dark) {\n  .card { background-color: #111111 }\n  .text { font-weight: bold }\n}',
    );
    const found = overridden(html);
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toMatch(
      /^A rule in @media \(prefers-color-scheme: dark\) sets background-color on "\.card" without !important/,
    );
    expect(found[0]!.element).toBe(
      '<table role="presentation" class="card" style="background-color:#ffffff">',
    );
    // `.text` sets font-weight, which the cell's style attribute does not: the rule applies.
  });

  it('is not reported when the rule says !important, the style attribute does not', () => {
    const html = email(
      '<p class="x" style="color:#222222; padding:10px">x</p>',
      '@media (max-width:600px) { .x { color: #000000 !important; padding-left: 0 !important } }\n' +
        '@media (max-width:600px) { .x { padding: 0 !important; padding-left: 4px } }',
    );
    // The second rule's padding-left loses to its own !important padding first.
    expect(overridden(html)).toEqual([]);
    // An !important style attribute no rule can beat: the hint says so.
    const stuck = overridden(
      email(
        '<p class="x" style="color:#222222 !important">x</p>',
        '@media (max-width:600px) { .x { color: #000 } }',
      ),
    );
    expect(stuck).toHaveLength(1);
    expect(stuck[0]!.hint).toMatch(
      /^The style attribute's color is !important, which no <style> rule can beat/,
    );
  });

  it('is reported when both say !important: Inline CSS copies an !important rule into the attribute', () => {
    const source = email(
      '<p class="x">x</p>',
      '.x { color: #222222 !important }\n@media (max-width:600px) { .x { color: #000000 !important } }',
    );
    const [found, ...rest] = overridden(inlineCss(source).html);
    expect(rest).toEqual([]);
    expect(found!.message).toBe(
      'A rule in @media (max-width:600px) sets color on ".x" with !important, but the element\'s style ' +
        'attribute sets color too with !important: an !important style attribute wins over every rule, so ' +
        'the rule never applies to it.',
    );
    expect(found!.hint).toMatch(/^Remove the !important from the style attribute's color/);
    // Not inlined, the later !important rule wins in its query: nothing to report.
    expect(overridden(source)).toEqual([]);
  });

  it('reads an inline shorthand as setting its longhands, not the other way round', () => {
    const cases: [inline: string, rule: string, reported: string | null][] = [
      ['padding:10px', 'padding-left:0', 'sets padding, which includes padding-left'],
      ['background:#ffffff', 'background-color:#000000', 'sets background, which includes background-color'],
      ['font:bold 18px Arial, sans-serif', 'font-size:14px', 'sets font, which includes font-size'],
      [
        'border:1px solid #cccccc',
        'border-top-color:#000000',
        'sets border, which includes border-top-color',
      ],
      [
        'border-top:1px solid #cccccc',
        'border-top-color:#000000',
        'sets border-top, which includes border-top-color',
      ],
      ['margin:0 auto', 'margin-right:0', 'sets margin, which includes margin-right'],
      ['PADDING-LEFT:10px', 'Padding-Left:0', 'sets padding-left too'],
      // The rule's other sides apply: not a rule that never applies.
      ['padding-left:10px', 'padding:0', null],
      ['background-color:#ffffff', 'background:#000000', null],
      ['font-size:18px', 'font-weight:bold', null],
    ];
    for (const [inline, rule, reported] of cases) {
      const found = overridden(
        email(`<td class="c" style="${inline}">x</td>`, `@media (max-width:600px) { .c { ${rule} } }`),
      );
      if (reported === null) expect(found, `${inline} / ${rule}`).toEqual([]);
      else expect(found.map((f) => f.message).join(), `${inline} / ${rule}`).toContain(reported);
    }
    expect(settersOf('padding-left')).toEqual(['padding-left', 'padding']);
    expect(settersOf('background-color')).toEqual(['background-color', 'background']);
    expect(settersOf('font-size')).toEqual(['font-size', 'font']);
    expect(settersOf('line-height')).toEqual(['line-height', 'font']);
    expect(settersOf('border-top-color')).toEqual([
      'border-top-color',
      'border',
      'border-top',
      'border-color',
    ]);
    expect(settersOf('border-color')).toEqual(['border-color', 'border']);
    expect(settersOf('border-bottom-left-radius')).toEqual(['border-bottom-left-radius', 'border-radius']);
    expect(settersOf('padding')).toEqual(['padding']);
    expect(settersOf('color')).toEqual(['color']);
  });

  it('is not reported for a selector that matches nothing, or a client-targeting hack', () => {
    const body =
      '<u></u><div class="body"><p class="x" style="color:#222222">x</p></div><p id="y" style="color:#222">y</p>';
    const html = email(
      body,
      '@media (max-width:600px) { .missing { color: #000 } #outlook a { color: #000 } }\n' +
        '@media (prefers-color-scheme: dark) { u + .body .x { color: #fff } [data-ogsc] .x { color: #fff } }\n' +
        '@media (max-width:600px) { .x:hover { color: #000 } #y::before { color: #000 } }',
    );
    expect(overridden(html)).toEqual([]);
    // The same element, selected by a plain selector: reported.
    expect(overridden(html.replace('.missing {', '.body .x {'))).toHaveLength(1);
  });

  it('is not reported for an element whose style attribute leaves the property alone', () => {
    const html = email(
      '<p class="x" style="font-size:18px">x</p>',
      '@media (max-width:600px) { .x { color: #000000; line-height: 20px } }',
    );
    expect(overridden(html)).toEqual([]);
    // Once it sets one of them, that one is reported.
    const setting = overridden(
      html.replace('style="font-size:18px"', 'style="font-size:18px; line-height:24px"'),
    );
    expect(setting.map((f) => f.message.split(' on ')[0])).toEqual([
      'A rule in @media (max-width:600px) sets line-height',
    ]);
  });

  it('leaves out what changes nothing and what only classic Outlook sees', () => {
    // The same value; a hidden preheader's colour; a style and an element in an mso conditional.
    const html = email(
      '<p class="x" style="color: #222222">x</p><div class="pre" style="display:none; color:#fff">Summary</div>' +
        '<!--[if mso]><p class="m" style="color:#222">m</p><style>@media (max-width:600px) { .x { color: #000 } }</style><![endif]-->',
      '@media (max-width:600px) { .x { color: #222222 } .m { color: #000 } }\n@media (prefers-color-scheme: dark) { .pre { color: #000 } }',
    );
    expect(overridden(html)).toEqual([]);
    // A phone-only block its style hides, which the query cannot show: reported.
    const reveal = overridden(
      email(
        '<div class="mobile" style="display:none; max-height:0; overflow:hidden">Tap here</div>',
        '@media (max-width:600px) { .mobile { display: block; max-height: none } }',
      ),
    );
    expect(reveal.map((f) => f.message.split(' on ')[0])).toEqual([
      'A rule in @media (max-width:600px) sets display',
      'A rule in @media (max-width:600px) sets max-height',
    ]);
    // Classic Outlook reads no media query: for an account that targets it alone, nothing.
    const inlined = email(
      '<p class="x" style="color:#222">x</p>',
      '@media (max-width:600px) { .x { color: #000 } }',
    );
    expect(overridden(inlined, ['outlook-windows'])).toEqual([]);
    expect(overridden(inlined, ['gmail-ios'])).toHaveLength(1);
  });

  it('names each rule and property once, at most, and reads @supports too', () => {
    const html = email(
      '<p class="x" style="color:#222; padding:4px">a</p>'.repeat(50),
      '@media (max-width:600px) { .x { color: #000; padding-top: 0 } }\n@supports (display:grid) { p { color: #111 } }',
    );
    const found = overridden(html);
    expect(found.map((f) => f.message.replace(/ without[\s\S]*/, ''))).toEqual([
      'A rule in @media (max-width:600px) sets color on ".x"',
      'A rule in @media (max-width:600px) sets padding-top on ".x"',
      'A rule in @supports (display:grid) sets color on "p"',
    ]);
  });

  it('stays bounded on a megabyte of rules and styled elements', () => {
    const rules = Array.from(
      { length: 1000 },
      (_, i) => `@media (max-width:600px){ .n${i} { padding:0; color:red } }`,
    );
    const cells = '<td style="padding:4px;color:#000">x</td>'.repeat(20_000);
    expect(overridden(email(`<table><tr>${cells}</tr></table>`, rules.join('\n')))).toEqual([]);
    // Every rule selecting every element: 2,000 findings, two of them alike a thousand times each,
    // listed three times and folded (check-input.ts foldFindings).
    const every = Array.from(
      { length: 1000 },
      (_, i) => `@media (max-width:600px){ td { padding-left:${i}px; color:red } }`,
    );
    const check = compatibility(email(`<table><tr>${cells}</tr></table>`, every.join('\n')));
    const listed = check.findings.filter((f) => f.severity === 'warning').map((f) => f.message);
    expect(listed.filter((m) => m.includes('sets padding-left on "td"'))).toHaveLength(3);
    expect(listed.filter((m) => m.includes('sets color on "td"'))).toHaveLength(3);
    expect(listed.filter((m) => m.startsWith('The same in 997 more places'))).toHaveLength(2);
    expect(listed).toHaveLength(8);
  });
});
