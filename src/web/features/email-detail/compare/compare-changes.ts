import type { Email, TemplateSyntax } from '../../../../shared/contract/email.ts';

/**
 * What differs between two versions, for the compare screen (compare-page.tsx): which of its text
 * tabs have a difference, and the changes no text diff shows. Everything an email was written
 * with and sent as is covered, so "the same" is said only when nothing differs
 * (docs/decisions/0122-compare-shows-the-text-part.md).
 */

/** A change no text diff shows: its name, as the left side had it, as the right side has it. */
export interface Change {
  label: string;
  from: string;
  to: string;
}

const SYNTAX_NAMES: Record<TemplateSyntax, string> = {
  handlebars: 'Handlebars',
  liquid: 'Liquid',
  mailchimp: 'Mailchimp',
};

/** The merge-tag syntax a version was sent with, as the composer names it. */
export const mergeTagsOf = (email: Email): string =>
  email.source.template ? SYNTAX_NAMES[email.source.template.syntax] : 'None';

/** Where the text part came from (as the detail page's Plain Text tab says, message-tabs.tsx). */
export const textOriginOf = (email: Email): string =>
  email.source.text !== null ? 'Written by you' : 'Generated from the HTML';

/**
 * The merge tags' sample data as the composer shows it when it edits a version (two-space JSON,
 * src/web/features/send/send-page.tsx); empty without merge tags.
 */
export const sampleDataOf = (email: Email): string =>
  email.source.template ? JSON.stringify(email.source.template.data, null, 2) : '';

/**
 * The headers every recipient got alike (To, Message-ID and Date are per recipient and not kept),
 * without those other rows name: the Subject, and the multipart boundary of Content-Type, a hash
 * of the two parts (src/server/mail/message.ts) whose changes the tabs show.
 */
function sharedHeaders(email: Email): Map<string, { name: string; value: string }> {
  const out = new Map<string, { name: string; value: string }>();
  for (const { name, value } of email.headers) {
    const key = name.toLowerCase();
    if (key === 'subject') continue;
    const shown = key === 'content-type' ? value.replace(/;\s*boundary=("[^"]*"|[^;\s]*)/i, '') : value;
    const seen = out.get(key);
    out.set(key, seen ? { name: seen.name, value: `${seen.value}, ${shown}` } : { name, value: shown });
  }
  return out;
}

function headerChanges(a: Email, b: Email): Change[] {
  // An email sent before headers were kept, whose message could not be rebuilt, has none: its
  // headers are unknown, not absent.
  if (a.headers.length === 0 || b.headers.length === 0) return [];
  const left = sharedHeaders(a);
  const right = sharedHeaders(b);
  const changes: Change[] = [];
  for (const key of new Set([...left.keys(), ...right.keys()])) {
    const l = left.get(key);
    const r = right.get(key);
    if (l?.value === r?.value) continue;
    changes.push({ label: (l ?? r)!.name, from: l?.value ?? 'None', to: r?.value ?? 'None' });
  }
  return changes;
}

const subjectOf = (subject: string) => subject || 'No Subject';

/** The changes of two versions no text diff of the compare screen shows, in the order it lists them. */
export function otherChanges(a: Email, b: Email): Change[] {
  // The subject as written differs from the one sent only through merge tags: listed when it
  // changed and one side has them, since the Subject row says it all otherwise.
  const writtenSubject =
    a.source.subject !== b.source.subject &&
    (a.source.subject !== a.subject || b.source.subject !== b.subject);
  return [
    { label: 'Subject', from: subjectOf(a.subject), to: subjectOf(b.subject) },
    ...(writtenSubject
      ? [
          {
            label: 'Subject as written',
            from: subjectOf(a.source.subject),
            to: subjectOf(b.source.subject),
          },
        ]
      : []),
    { label: 'To', from: a.to, to: b.to },
    ...headerChanges(a, b),
    {
      label: 'Format',
      from: a.source.format === 'mjml' ? 'MJML' : 'HTML',
      to: b.source.format === 'mjml' ? 'MJML' : 'HTML',
    },
    { label: 'Merge tags', from: mergeTagsOf(a), to: mergeTagsOf(b) },
    { label: 'Inline CSS', from: a.source.inlineCss ? 'On' : 'Off', to: b.source.inlineCss ? 'On' : 'Off' },
    { label: 'Plain text', from: textOriginOf(a), to: textOriginOf(b) },
  ].filter((c) => c.from !== c.to);
}

/** What differs between two versions: each text tab's texts, and the rest. */
export interface Differences {
  /** The source as written, or the merge tags' sample data (both on the Written Source tab). */
  written: boolean;
  /** The HTML part as sent. */
  sent: boolean;
  /** The plain-text part as sent. */
  text: boolean;
  others: Change[];
  /** Nothing written or sent differs. */
  none: boolean;
}

export function differencesOf(a: Email, b: Email): Differences {
  const written = a.source.html !== b.source.html || sampleDataOf(a) !== sampleDataOf(b);
  const sent = a.html !== b.html;
  const text = a.text !== b.text;
  const others = otherChanges(a, b);
  return { written, sent, text, others, none: !written && !sent && !text && others.length === 0 };
}
