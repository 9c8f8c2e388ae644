import type { Check, Finding } from '../../shared/contract/checks.ts';
import { checkOf, type HtmlCheckContext } from './check-input.ts';
import { contrastRatio, hex, rgbNumber } from './colour.ts';
import { backgroundColour, fontSizePx, hasOwnText, isBold, isHidden, textColour } from './computed.ts';
import { closest, findingAt, insideHead, mainElements, textOf, type El } from './html-doc.ts';

/**
 * Accessibility of the HTML as sent (docs/decisions/0063-pre-send-checklist.md): the language, the
 * title, layout tables marked as presentation, alt text that says something, headings in order,
 * link text that makes sense alone, text contrast (WCAG 2.2 AA: 4.5:1, 3:1 for large text) and
 * text too small to read. Missing alt attributes are the images check's.
 */

/** Below this (CSS px) text is too small to read comfortably; iOS enlarges text under 13 px. */
export const TINY_TEXT_PX = 12;
/** WCAG 2.2 AA contrast for normal and for large text (≥ 24 px, or ≥ 18.66 px bold). */
export const CONTRAST_NORMAL = 4.5;
export const CONTRAST_LARGE = 3;

export const VAGUE_LINK_TEXT = new Set([
  'click here',
  'click',
  'here',
  'this',
  'link',
  'this link',
  'read more',
  'more',
  'learn more',
  'find out more',
  'more info',
  'more information',
  'go',
  'continue',
  'details',
]);

/** The tables that are data tables: with headers or a caption inside, or a summary. */
function dataTables(elements: El[]): Set<El> {
  const data = new Set<El>();
  for (const el of elements) {
    if (el.name === 'table' && el.attrs.summary) data.add(el);
    if (el.name === 'th' || el.name === 'caption') {
      const table = nearestTable(el);
      if (table) data.add(table);
    }
  }
  return data;
}

function nearestTable(el: El): El | null {
  return closest(el.parent, (e) => e.name === 'table');
}

const FILE_NAME_ALT =
  /^(?:[\w-]+\.(?:png|jpe?g|gif|webp|svg|bmp)|image|img|photo|picture|spacer|logo\d*|img_?\d+|dsc_?\d+)$/i;

/** A mark a link's text may end with ("Read more…", "Go →"). */
const TRAILING_MARK = /[.…!:›»→>\s]/;

/**
 * The text without the marks it ends with. A loop, not `/[…]+$/`: that tries every start inside a
 * long run of marks, 0.8 s for a link of 40,000 dots followed by a letter.
 */
function withoutTrailingMarks(text: string): string {
  let end = text.length;
  while (end > 0 && TRAILING_MARK.test(text[end - 1]!)) end--;
  return text.slice(0, end);
}

export function checkAccessibility(ctx: HtmlCheckContext): Check {
  const { doc } = ctx;
  const elements = mainElements(doc);
  const findings: Finding[] = [];

  const html = elements.find((el) => el.name === 'html');
  if (!namesLanguage(html) && !languageWrapsText(elements))
    findings.push(
      html?.attrs.lang?.trim()
        ? {
            severity: 'warning',
            message: `The email's language is "${html.attrs.lang.trim()}", undetermined (MJML writes it when <mjml> has no lang): screen readers may read the email in the wrong language.`,
            hint: 'Add lang="en" (or the email\'s language) to <mjml>, or to <html>.',
            ...findingAt(doc, html),
          }
        : {
            severity: 'warning',
            message:
              'The <html> element has no lang attribute: screen readers may read the email in the wrong language.',
            hint: 'Add lang="en" (or the email\'s language) to <html>.',
            ...(html && findingAt(doc, html)),
          },
    );

  const title = elements.find((el) => el.name === 'title');
  if (!title || !textOf(title))
    findings.push({
      severity: 'warning',
      message: 'The email has no <title>: some clients and screen readers show or read it.',
      hint: 'Add a <title> in <head>, usually the subject.',
    });

  const data = dataTables(elements);
  const layoutTables = elements.filter(
    (el) =>
      el.name === 'table' && el.attrs.role !== 'presentation' && el.attrs.role !== 'none' && !data.has(el),
  );
  if (layoutTables.length > 0)
    findings.push({
      severity: 'warning',
      message:
        layoutTables.length === 1
          ? 'A layout table has no role="presentation": screen readers announce its rows and columns.'
          : `${layoutTables.length} layout tables have no role="presentation": screen readers announce their rows and columns.`,
      hint: 'Add role="presentation" to every table used for layout.',
      ...findingAt(doc, layoutTables[0]!),
    });

  for (const img of elements.filter((el) => el.name === 'img')) {
    const alt = img.attrs.alt?.trim();
    if (alt && FILE_NAME_ALT.test(alt))
      findings.push({
        severity: 'warning',
        message: `An image's alt text is "${alt}": it does not say what the image shows.`,
        hint: 'Describe the image, or use alt="" if it is decorative.',
        ...findingAt(doc, img),
      });
  }

  let previous = 0;
  for (const h of elements.filter((el) => /^h[1-6]$/.test(el.name))) {
    const level = Number(h.name[1]);
    if (previous > 0 && level > previous + 1)
      findings.push({
        severity: 'warning',
        message: `A heading skips a level: <h${level}> follows <h${previous}>.`,
        hint: `Use <h${previous + 1}> here, and style it to look the way you want.`,
        ...findingAt(doc, h),
      });
    previous = level;
  }

  const byId = new Map(elements.filter((el) => el.attrs.id).map((el) => [el.attrs.id!, el]));
  for (const a of elements.filter((el) => el.name === 'a' && el.attrs.href)) {
    const name = linkName(a, byId);
    const said = withoutTrailingMarks(name.toLowerCase()).trim();
    if (VAGUE_LINK_TEXT.has(said))
      findings.push({
        severity: 'warning',
        message: `A link says "${name}": out of context, it does not say where it goes.`,
        hint: 'Name the destination ("Read the spring catalogue", "Track your order").',
        ...findingAt(doc, a),
      });
    else if (!said)
      findings.push({
        severity: 'warning',
        message: 'A link has no text: screen readers read its URL.',
        hint: 'Give the link text, or alt text to the image inside it.',
        ...findingAt(doc, a),
      });
  }

  // Per pair of colours (text × 2^24 + background): its contrast, worked out once.
  const ratios = new Map<number, number>();
  // The pairs (×2, +1 for large text) already reported.
  const reported = new Set<number>();
  let tiny = 0;
  let firstTiny: El | undefined;
  for (const el of elements) {
    if (!hasOwnText(el) || isHidden(el)) continue;
    const size = fontSizePx(el);
    if (size === 0) continue; // unseen text (computed.ts textHidden)
    if (size < TINY_TEXT_PX) {
      tiny++;
      firstTiny ??= el;
    }
    const fg = textColour(el);
    const bg = backgroundColour(el);
    if (!fg.colour || !bg.colour || (!fg.declared && !bg.declared)) continue;
    const pair = rgbNumber(fg.colour) * 0x1000000 + rgbNumber(bg.colour);
    let ratio = ratios.get(pair);
    if (ratio === undefined) ratios.set(pair, (ratio = contrastRatio(fg.colour, bg.colour)));
    const large = size >= 24 || (size >= 18.66 && isBold(el));
    const needed = large ? CONTRAST_LARGE : CONTRAST_NORMAL;
    const key = pair * 2 + (large ? 1 : 0);
    if (ratio < needed && !reported.has(key)) {
      reported.add(key);
      findings.push({
        severity: 'warning',
        message: `Text in ${hex(fg.colour)} on ${hex(bg.colour)} has a contrast of ${ratio.toFixed(2)}:1; ${large ? 'large ' : ''}text needs ${needed}:1.`,
        hint: 'Darken the text or lighten the background (WCAG 2.2 AA).',
        ...findingAt(doc, el),
      });
    }
  }
  if (firstTiny)
    findings.push({
      severity: 'warning',
      message: `${tiny === 1 ? 'A text is' : `${tiny} texts are`} smaller than ${TINY_TEXT_PX}px: hard to read, above all on a phone.`,
      hint: `Use at least ${TINY_TEXT_PX}px (14px or more for body text).`,
      ...findingAt(doc, firstTiny),
    });

  return checkOf('accessibility', findings);
}

/**
 * What a screen reader says for a link, in the order of the accessible-name computation
 * (https://www.w3.org/TR/accname-1.2/): `aria-labelledby`, `aria-label`, its text with the alt
 * text of images inside, then `title`.
 */
function linkName(a: El, byId: Map<string, El>): string {
  const labelledBy = (a.attrs['aria-labelledby'] ?? '')
    .split(/\s+/)
    .map((id) => byId.get(id))
    .filter((el): el is El => el !== undefined)
    .map(textOf)
    .join(' ')
    .trim();
  if (labelledBy) return labelledBy;
  const label = a.attrs['aria-label']?.trim();
  if (label) return label;
  const text = textOf(a);
  if (text) return text;
  const alt = elementsWithin(a)
    .filter((el) => el.name === 'img')
    .map((img) => img.attrs.alt?.trim() ?? '')
    .join(' ')
    .trim();
  return alt || (a.attrs.title?.trim() ?? '');
}

/**
 * Whether an element with a `lang` holds all the text a reader sees: webmail drops `<html>`, so the
 * Email Markup Consortium's pattern puts the language on `<body>` or on a wrapper
 * (`<div role="article" lang="en">`) around the whole email.
 */
/**
 * The element names a language: a `lang` that is neither empty nor `und`, BCP 47's "undetermined"
 * (MJML's default, `<html lang="und">`, which tells a screen reader nothing).
 */
function namesLanguage(el: El | undefined): boolean {
  const lang = el?.attrs.lang?.trim().toLowerCase();
  return Boolean(lang) && lang !== 'und' && !lang!.startsWith('und-');
}

function languageWrapsText(elements: El[]): boolean {
  const withLang = new Set(elements.filter((el) => namesLanguage(el)));
  if (withLang.size === 0) return false;
  const texts = elements.filter((el) => hasOwnText(el) && !isHidden(el) && !insideHead(el));
  if (texts.length === 0) return false;
  return texts.every((el) => closest(el, (e) => withLang.has(e)) !== null);
}

function elementsWithin(el: El): El[] {
  const out: El[] = [];
  const walk = (e: El) => {
    for (const c of e.children)
      if (c.kind === 'element') {
        out.push(c);
        walk(c);
      }
  };
  walk(el);
  return out;
}
