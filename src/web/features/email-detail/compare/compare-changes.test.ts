import { describe, expect, it } from 'vitest';
import type { Email } from '../../../../shared/contract/email.ts';
import { differencesOf, otherChanges, sampleDataOf } from './compare-changes.ts';

type Changes = Partial<Omit<Email, 'source'>> & { source?: Partial<Email['source']> };

/** A version as `GET /api/email/{id}` answers it; `changes` as a next version would differ. */
function version(changes: Changes = {}): Email {
  const html = '<p>Hello Ada, the spring sale.</p>';
  const base: Email = {
    id: '6f1c1a52-3f0c-4c1e-9a53-2b1f0f7c9a10',
    threadId: '6f1c1a52-3f0c-4c1e-9a53-2b1f0f7c9a10',
    version: 1,
    to: 'client@example.com',
    subject: 'Spring sale',
    html,
    createdAt: '2026-12-01T10:00:00.000Z',
    isPublic: false,
    publicSlug: null,
    delivery: { state: 'sent', attempts: 1, error: null, sentAt: null, uncertain: false },
    source: {
      format: 'html',
      html: '<p>Hello {{name}}, the spring sale.</p>',
      subject: 'Spring sale',
      template: { syntax: 'handlebars', data: { name: 'Ada' } },
      inlineCss: false,
      text: null,
    },
    text: 'Hello Ada, the spring sale.',
    headers: [
      { name: 'From', value: 'Proofmail <test@proofmail.example>' },
      { name: 'Subject', value: 'Spring sale' },
      { name: 'MIME-Version', value: '1.0' },
      { name: 'Content-Type', value: 'multipart/alternative; boundary="--_NmP-6b1a2f0e9c8d7a6b-Part_1"' },
    ],
    bytes: { html: html.length, message: 900 },
    deliveries: [],
    checks: null,
    versions: [],
    share: null,
    reviews: [],
  };
  return { ...base, ...changes, source: { ...base.source, ...changes.source } };
}

describe('what differs between two versions', () => {
  it('finds nothing in a version sent again as it was', () => {
    const a = version();
    const b = version({ id: 'b', version: 2 });
    expect(differencesOf(a, b)).toEqual({ written: false, sent: false, text: false, others: [], none: true });
  });

  it('finds a plain-text part written by hand, its origin, and nothing in the HTML', () => {
    const a = version();
    const b = version({
      text: 'Custom plain text part',
      source: { text: 'Custom plain text part' },
      headers: a.headers.map((h) =>
        h.name === 'Content-Type'
          ? { ...h, value: 'multipart/alternative; boundary="--_NmP-0c9d-Part_1"' }
          : h,
      ),
    });
    const differences = differencesOf(a, b);
    expect(differences).toMatchObject({ written: false, sent: false, text: true, none: false });
    // The boundary follows the parts: it is not a change of its own.
    expect(differences.others).toEqual([
      { label: 'Plain text', from: 'Generated from the HTML', to: 'Written by you' },
    ]);
  });

  it('finds changed sample data, and a changed merge-tag syntax', () => {
    const a = version();
    const data = version({
      html: '<p>Hello Grace, the spring sale.</p>',
      source: { template: { syntax: 'handlebars', data: { name: 'Grace' } } },
    });
    expect(differencesOf(a, data)).toMatchObject({ written: true, sent: true, others: [], none: false });
    expect(sampleDataOf(data)).toBe('{\n  "name": "Grace"\n}');

    // The same data under another syntax: the HTML as sent may well be the same.
    const syntax = version({ source: { template: { syntax: 'liquid', data: { name: 'Ada' } } } });
    expect(differencesOf(a, syntax)).toMatchObject({
      written: false,
      sent: false,
      others: [{ label: 'Merge tags', from: 'Handlebars', to: 'Liquid' }],
      none: false,
    });
    const none = version({ source: { template: undefined } });
    expect(differencesOf(a, none)).toMatchObject({
      written: true,
      others: [{ label: 'Merge tags', from: 'Handlebars', to: 'None' }],
    });
    expect(sampleDataOf(none)).toBe('');
  });

  it('lists the subject as written only when merge tags make it differ from the one sent', () => {
    const a = version({ subject: 'Hi Ada', source: { subject: 'Hi {{name}}' } });
    const b = version({ subject: 'Hi Ada', source: { subject: 'Hi Ada' } });
    expect(otherChanges(a, b)).toEqual([{ label: 'Subject as written', from: 'Hi {{name}}', to: 'Hi Ada' }]);
    const plain = version({ subject: 'Spring sale, round 2', source: { subject: 'Spring sale, round 2' } });
    expect(otherChanges(version(), plain)).toEqual([
      { label: 'Subject', from: 'Spring sale', to: 'Spring sale, round 2' },
    ]);
  });

  it('lists a changed shared header, the format and the options, in the order the page shows them', () => {
    const a = version();
    const b = version({
      to: 'client@example.com, boss@example.com',
      headers: [...a.headers, { name: 'Reply-To', value: 'ada@example.com' }],
      source: { format: 'mjml', inlineCss: true },
    });
    expect(otherChanges(a, b).map((c) => [c.label, c.from, c.to])).toEqual([
      ['To', 'client@example.com', 'client@example.com, boss@example.com'],
      ['Reply-To', 'None', 'ada@example.com'],
      ['Format', 'HTML', 'MJML'],
      ['Inline CSS', 'Off', 'On'],
    ]);
    // An email whose headers were never kept has unknown headers, not none.
    expect(otherChanges(version({ headers: [] }), b).map((c) => c.label)).not.toContain('Reply-To');
  });
});
