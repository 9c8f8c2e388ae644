import type { Check, Finding } from '../../shared/contract/checks.ts';
import { DEFAULT_SUBJECT, type TemplateSyntax } from '../../shared/contract/email.ts';
import { checkOf, type StaticCheckContext } from './check-input.ts';
import { hasOwnText, isHidden, textHidden } from './computed.ts';
import { isWebFontSheet } from './css-scan.ts';
import { closest, findingAt, insideHead, mainElements, textOf, type El } from './html-doc.ts';
import { MERGE_TAG } from './merge-tags.ts';
import { afterLeadingMarkup } from '../../shared/preview/leading-markup.ts';

/**
 * What the content says and carries (docs/decisions/0063-pre-send-checklist.md): a preheader, a
 * subject of a readable length, no merge tag left unfilled, nothing that mail clients strip, and
 * an unsubscribe link.
 */

/** What JavaScript writes for an object turned into text, as template engines do with `{{customer}}`. */
const OBJECT = '[object Object]';
/** A document whose root is `<mjml>` (comments, an XML declaration and white space before it). */
function isMjmlRoot(html: string): boolean {
  const at = afterLeadingMarkup(html);
  return /^<mjml[\s>]/i.test(html.slice(at, at + 6));
}

/** Inboxes show about this many characters of a subject; longer ones are cut. */
export const SUBJECT_MAX_CHARS = 70;

/** Elements mail clients remove (with what they do), and how bad it is. */
const STRIPPED: Record<string, { severity: 'error' | 'warning'; what: string }> = {
  script: { severity: 'error', what: 'Every mail client removes scripts' },
  iframe: { severity: 'error', what: 'Mail clients remove iframes' },
  object: { severity: 'error', what: 'Mail clients remove <object>' },
  embed: { severity: 'error', what: 'Mail clients remove <embed>' },
  applet: { severity: 'error', what: 'Mail clients remove <applet>' },
  frame: { severity: 'error', what: 'Mail clients remove frames' },
  frameset: { severity: 'error', what: 'Mail clients remove frames' },
  form: { severity: 'warning', what: 'Most mail clients disable or remove forms' },
  input: { severity: 'warning', what: 'Most mail clients disable or remove form fields' },
  select: { severity: 'warning', what: 'Most mail clients disable or remove form fields' },
  textarea: { severity: 'warning', what: 'Most mail clients disable or remove form fields' },
  button: { severity: 'warning', what: 'Most mail clients disable buttons' },
  video: { severity: 'warning', what: 'Only a few mail clients play video' },
  audio: { severity: 'warning', what: 'Only a few mail clients play audio' },
  base: { severity: 'warning', what: 'Many mail clients ignore <base>' },
};

/**
 * What an unsubscribe link says, in the languages of the emails people send: an email in German
 * with "Abmelden" in its footer has one. A preference centre ("Manage your subscription", "Email
 * preferences") counts, as the bulk-sender rules accept it.
 */
const UNSUBSCRIBE_TEXT = new RegExp(
  [
    'unsubscribe|un-subscribe|opt[ -]?out|(?:email|e-mail|subscription|mailing) preferences|manage (?:your )?(?:email |e-mail )?subscriptions?',
    'abmelden|abbestellen|austragen', // de
    'désabonne|désinscri|desinscri|desabonne', // fr
    'darse de baja|date de baja|dar de baja|cancelar (?:la |tu |su )?suscripci[oó]n|desuscrib', // es
    'descadastr|cancelar (?:a |sua )?(?:inscri[cç][aã]o|assinatura)', // pt
    "disiscriv|annulla(?:re)? l'iscrizione|cancellati\\b|disiscrizione", // it
    'uitschrijven|afmelden', // nl
    'avregistrera|avsluta prenumeration|avprenumerera|afmeld|frameld|avmeld|meld deg av', // sv, da, no
    'wypisz|wypisać|rezygnacja z subskrypcji|odhl[aá]sit|peruuta tilaus|abonelikten [cç][ıi]k', // pl, cs, fi, tr
    'отписаться|отписка|配信停止|購読解除|退订|取消订阅|수신\\s?거부|구독\\s?취소', // ru, ja, zh, ko
  ].join('|'),
  'i',
);
/**
 * A subject that names a transaction (a receipt, an order, a password reset, a sign-in code): such
 * an email may go without an unsubscribe link (the bulk-sender rules exempt it), so its absence is
 * an info, not a warning. English words only; any other subject keeps the warning.
 */
const TRANSACTIONAL =
  /\b(?:receipt|invoice|order (?:confirm\w*|#?\d+|shipped|update)|your order|payment (?:received|confirm\w*|failed)|password|verif(?:y|ication)|confirm (?:your|email)|sign[- ]?in code|security code|one-time code|shipp(?:ed|ing) (?:confirm\w*|update)|booking confirm\w*|reservation confirm\w*)\b/i;

/** The same in an address: `/unsubscribe`, `optout`, `/abmelden`, `?action=unsub`. */
const UNSUBSCRIBE_HREF = /unsub|opt[-_]?out|abmeld|desinscri|desabonn|uitschrijv|afmeld/i;

/**
 * After a template engine filled the email, a tag of its own syntax left in it is one the author
 * wrote to stay as it is (Liquid's `{% raw %}`, Handlebars' `\{{`) or one a value brought: the
 * engine reads every one of its tags, and those it could not fill it renders blank (reported from
 * the sample data). Tags of another syntax are still reported.
 */
function literalOf(syntax: TemplateSyntax | undefined): (tag: string) => boolean {
  if (syntax === 'liquid') return (tag) => tag.startsWith('{{') || tag.startsWith('{%');
  if (syntax === 'handlebars') return (tag) => tag.startsWith('{{');
  return () => false;
}

function mergeTagFindings(ctx: StaticCheckContext): Finding[] {
  const { input, doc } = ctx;
  const seen = new Set<string>();
  const findings: Finding[] = [];
  // The generated text part writes headings in capitals ({{name}} in an <h1> becomes {{NAME}}): a tag
  // reported in the HTML is not reported again from the text part in another case.
  const seenAnyCase = new Set<string>();
  const add = (tag: string, where: string, line?: number) => {
    const key = tag.replace(/\s+/g, '');
    if (seen.has(key) || (where === 'plain-text part' && seenAnyCase.has(key.toLowerCase()))) return;
    seen.add(key);
    seenAnyCase.add(key.toLowerCase());
    findings.push(
      where === 'sample data'
        ? {
            severity: 'error',
            message: `A merge tag has no value in the sample data, so it is sent blank: ${tag.slice(0, 80)}.`,
            hint: 'Add it to the sample data, or give the tag a default value.',
          }
        : {
            severity: 'error',
            message: `A merge tag was left unfilled in the ${where}: ${tag.slice(0, 80)}.`,
            hint: 'Recipients would see it as written: fill it, or give it a default value.',
            ...(line !== undefined && { line }),
          },
    );
  };
  const literal = literalOf(input.notes?.syntax);
  const tags = (text: string) => [...text.matchAll(MERGE_TAG)].filter((m) => !literal(m[0]));
  for (const m of tags(input.subject)) add(m[0], 'subject');
  const unseen = unseenRanges(input.html);
  let r = 0; // the tags come in order, and so do the ranges
  for (const m of tags(input.html)) {
    while (r < unseen.length && unseen[r]![1] <= m.index) r++;
    if (r < unseen.length && unseen[r]![0] <= m.index) continue;
    add(m[0], 'HTML', doc.line(m.index));
  }
  for (const m of tags(input.text)) add(m[0], 'plain-text part');
  // A template engine renders a tag without a value blank (its names, from notes.unfilled); a
  // Mailchimp tag left unfilled stays in the HTML as written, and is reported there, at its line.
  for (const name of input.notes?.unfilled ?? []) if (!seen.has(`*|${name}|*`)) add(name, 'sample data');
  return findings;
}

/**
 * Where the HTML holds text no client shows: comments (an Outlook conditional comment's content is
 * shown by Outlook, so it is not one; `<!-->` is an empty comment) and the comments of a `<style>`
 * block. A merge tag there reaches no reader. In order, as [start, end) offsets.
 *
 * Found with `indexOf` from each opening: a pattern like `<!--[\s\S]*?-->` tried at every `<!--`
 * of an email that never closes them scans to the end each time (1.5 s for 40,000 of them).
 */
const OPENING = /<!--|<style\b[^>]*>/gi;
const STYLE_END = /<\/style\s*>/gi;
export function unseenRanges(html: string): [number, number][] {
  const ranges: [number, number][] = [];
  let commentsClose = true; // false once a comment is found never closed: none after it closes either
  OPENING.lastIndex = 0;
  for (let m = OPENING.exec(html); m; m = OPENING.exec(html)) {
    const start = m.index;
    if (m[0] === '<!--') {
      const next = html.slice(start + 4, start + 7);
      if (!commentsClose || next.startsWith('[if') || next.startsWith('>') || next.startsWith('->')) continue;
      const end = html.indexOf('-->', start + 4);
      if (end === -1) {
        commentsClose = false;
        continue;
      }
      ranges.push([start, end + 3]);
      OPENING.lastIndex = end + 3;
      continue;
    }
    STYLE_END.lastIndex = OPENING.lastIndex;
    const close = STYLE_END.exec(html);
    const blockEnd = close ? close.index + close[0].length : html.length;
    const css = html.slice(start, blockEnd);
    for (const c of css.matchAll(/\/\*[\s\S]*?(?:\*\/|$)/g))
      ranges.push([start + c.index, start + c.index + c[0].length]);
    OPENING.lastIndex = blockEnd;
  }
  return ranges;
}

/**
 * The first `max` characters of what a reader sees in an element, its children's text included
 * (`<p>Hello <b>world</b></p>` reads "Hello world"), blanks collapsed; hidden elements left out.
 */
function leadingText(el: El, max: number): string {
  let text = '';
  const walk = (node: El) => {
    for (const c of node.children) {
      if (text.length > max * 2) return;
      if (c.kind === 'text') text += c.text;
      else if (!['style', 'script', 'title'].includes(c.name) && !isHidden(c)) walk(c);
    }
  };
  walk(el);
  return text.replace(/\s+/g, ' ').trim().slice(0, max);
}

/** The first text a reader's inbox shows: a hidden preheader, or the start of the body. */
function firstText(elements: El[]): El | undefined {
  return elements.find(
    (el) => !['title', 'style', 'head', 'script'].includes(el.name) && !insideHead(el) && hasOwnText(el),
  );
}

/**
 * Text its author marked as the preheader (a class or id that says so, as Mailchimp's and
 * Postmark's templates do): the teaser, whether hidden by a `<style>` rule or shown on purpose.
 */
function namedPreheader(el: El): boolean {
  return closest(el, (e) => /pre-?header/i.test(`${e.attrs.class ?? ''} ${e.attrs.id ?? ''}`)) !== null;
}

/**
 * Gmail's email markup (schema.org actions and highlights) is JSON-LD in a `<script>` no client
 * runs: Gmail reads it, the others drop it unseen. Not a script to warn about.
 */
const structuredData = (el: El) =>
  el.name === 'script' && /^\s*application\/ld\+json\s*$/i.test(el.attrs.type ?? '');

/**
 * A hidden checkbox or radio button whose `:checked` state CSS reads (MJML's navbar, tabs and
 * carousels): where a client removes it, the rules that read it match nothing and the content shows
 * as it would without them. It degrades as designed.
 */
function checkboxHack(el: El): boolean {
  return el.name === 'input' && /^(?:checkbox|radio)$/i.test(el.attrs.type ?? '') && isHidden(el);
}

/**
 * Inboxes show about this many characters of the preview beside the subject (Apple Mail's two
 * lines; Gmail shows fewer): invisible spacers this long before the first text leave it blank.
 */
const PREVIEW_CHARS = 100;
/** The spacers of a preheader hack (`&zwnj;&nbsp;`, `&#847;`, `&#8199;`, soft hyphens, zero-width spaces). */
// eslint-disable-next-line no-misleading-character-class -- each invisible character is counted on its own
const SPACER = /[\u00A0\u2000-\u200F\u202F\u205F\u00AD\u034F\u2060\uFEFF]/g;

/** How many spacer characters the text of the body holds before `first` (hidden text counts: inboxes show it). */
function spacersBefore(elements: El[], first: El): number {
  let count = 0;
  for (const el of elements) {
    if (el === first) break;
    if (insideHead(el) || ['title', 'style', 'script'].includes(el.name)) continue;
    for (const c of el.children) if (c.kind === 'text') count += c.text.match(SPACER)?.length ?? 0;
  }
  return count;
}

export function checkContent(ctx: StaticCheckContext): Check {
  const { input, doc } = ctx;
  const elements = mainElements(doc);
  const findings: Finding[] = [];

  const first = firstText(elements);
  if (first && !textHidden(first) && !namedPreheader(first))
    findings.push({
      severity: 'warning',
      message:
        spacersBefore(elements, first) >= PREVIEW_CHARS
          ? 'No preheader: inboxes show a blank preview beside the subject (invisible spacers come before the first text).'
          : `No preheader: inboxes show the first text of the email beside the subject ("${leadingText(first, 60)}").`,
      hint: 'Add a short hidden summary as the first element of <body> (display:none; max-height:0; overflow:hidden; mso-hide:all).',
      ...findingAt(doc, first),
    });

  if (input.subject === DEFAULT_SUBJECT)
    findings.push({
      severity: 'warning',
      message: `The subject is empty: it goes out as "${DEFAULT_SUBJECT}".`,
      hint: 'Write the subject your recipients will see.',
    });
  else if ([...input.subject].length > SUBJECT_MAX_CHARS)
    findings.push({
      severity: 'warning',
      message: `The subject is ${[...input.subject].length} characters long: most inboxes cut it after about 60.`,
      hint: 'Put what matters in the first 40 to 60 characters.',
    });

  findings.push(...mergeTagFindings(ctx));

  const object = [input.subject, input.html, input.text].findIndex((part) => part.includes(OBJECT));
  if (object !== -1)
    findings.push({
      severity: 'error',
      message: `The ${['subject', 'HTML', 'plain-text part'][object]} shows "${OBJECT}": a merge tag was filled with an object, not a text.`,
      hint: 'Name a field of it in the tag ({{customer.name}}), or give the tag a text value in the sample data.',
      ...(object === 1 && { line: doc.line(input.html.indexOf(OBJECT)) }),
    });

  if (isMjmlRoot(input.html))
    findings.push({
      severity: 'error',
      message:
        'This is MJML sent as HTML: no mail client reads <mjml>, so recipients would see its text unstyled.',
      hint: 'Choose MJML as the source format: it is compiled to HTML before it is sent.',
      line: doc.line(input.html.search(/<mjml[\s>]/i)),
    });

  const reported = new Set<string>();
  for (const el of doc.elements) {
    const stripped = STRIPPED[el.name];
    if (stripped && !reported.has(el.name) && !checkboxHack(el) && !structuredData(el)) {
      reported.add(el.name);
      findings.push({
        severity: stripped.severity,
        message: `${stripped.what}: this email has <${el.name}>.`,
        hint:
          stripped.severity === 'error'
            ? 'Remove it, and link to a web page for anything interactive.'
            : 'Link to a web page instead, or give it a fallback that works without it.',
        ...findingAt(doc, el),
      });
    }
    if (
      el.name === 'link' &&
      /stylesheet/i.test(el.attrs.rel ?? '') &&
      !isWebFontSheet(el.attrs.href ?? '') &&
      !reported.has('link')
    ) {
      reported.add('link');
      findings.push({
        severity: 'warning',
        message: 'Gmail and most webmail ignore external style sheets (<link rel="stylesheet">).',
        hint: 'Put the CSS in a <style> block and inline it.',
        ...findingAt(doc, el),
      });
    }
    const handler = Object.keys(el.attrs).find((name) => name.startsWith('on'));
    if (handler && !reported.has('on*')) {
      reported.add('on*');
      findings.push({
        severity: 'warning',
        message: `Mail clients remove event handlers like ${handler}=.`,
        hint: 'Remove it: nothing in an email runs script.',
        ...findingAt(doc, el),
      });
    }
  }

  const unsubscribeLink = elements.some(
    (el) =>
      el.name === 'a' && (UNSUBSCRIBE_HREF.test(el.attrs.href ?? '') || UNSUBSCRIBE_TEXT.test(textOf(el))),
  );
  const unsubscribeHeader = input.headers.some((h) => h.name.toLowerCase() === 'list-unsubscribe');
  const transactional = TRANSACTIONAL.exec(input.subject)?.[0];
  if (!unsubscribeLink && !unsubscribeHeader)
    findings.push(
      transactional
        ? {
            severity: 'info',
            message: `No unsubscribe link: fine for a transactional email (the subject says "${transactional}"); marketing email needs one.`,
            hint: 'If this email also markets, add a link whose text says "Unsubscribe".',
          }
        : {
            severity: 'warning',
            message:
              'No unsubscribe link: marketing email needs one (and Gmail and Yahoo require it of bulk senders).',
            hint: 'Add a link whose text says "Unsubscribe". A transactional email may go without.',
          },
    );

  return checkOf('content', findings);
}
