import { describe, expect, it } from 'vitest';
import { prepare } from './prepare.ts';
import { STARTER_TEMPLATES } from '../../shared/starter-templates/starter-templates.ts';
import { DEFAULT_TARGET_CLIENTS } from '../../shared/contract/checks.ts';
import { runStaticChecks } from '../checks/static-checks.ts';

const envelope = {
  from: 'Proofmail <no-reply@proofmail.test>',
  to: 'client@example.com',
  replyTo: null,
  messageIdDomain: 'proofmail.test',
  date: new Date('2026-03-15T12:00:00Z'),
};

/** Every starter template goes through the one door as the composer sends it: all tags filled. */
describe('starter templates', () => {
  it('has each kind in HTML and MJML', () => {
    const names = [...new Set(STARTER_TEMPLATES.map((t) => t.name))];
    expect(names).toEqual(['Announcement', 'Two-Column Newsletter', 'Receipt']);
    for (const name of names) {
      expect(STARTER_TEMPLATES.filter((t) => t.name === name).map((t) => t.format)).toEqual(['html', 'mjml']);
    }
  });

  for (const template of STARTER_TEMPLATES) {
    it(`${template.id} compiles and fills every tag`, async () => {
      const prepared = await prepare(
        {
          html: template.source,
          subject: template.subject,
          inlineCss: true,
          text: null,
          format: template.format,
          template: { syntax: template.syntax, data: template.data },
        },
        envelope,
      );
      expect(prepared.notes.unfilled).toEqual([]);
      expect(prepared.html).not.toMatch(/\{\{|\{%|\*\|/);
      expect(prepared.html).not.toContain('&lt;');
      expect(prepared.text.length).toBeGreaterThan(100);
      // A starter passes the checklist it is judged by, with no warning at all: a receipt is
      // transactional, and its subject says so (no unsubscribe link is an info).
      const found = runStaticChecks(prepared, DEFAULT_TARGET_CLIENTS).flatMap((check) =>
        check.findings.filter((f) => f.severity !== 'info').map((f) => `${check.id}: ${f.message}`),
      );
      expect(found).toEqual([]);
    });
  }
});
