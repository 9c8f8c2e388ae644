import { describe, expect, it } from 'vitest';
import type { Finding } from '../../shared/contract/checks.ts';
import { checkOf, foldFindings, MAX_LISTED, SAME_LISTED } from './check-input.ts';

const noAlt = (line: number): Finding => ({
  severity: 'error',
  message: 'An image has no alt attribute.',
  hint: 'Add alt.',
  element: '<img src="a.png">',
  line,
});
const warning = (n: number): Finding => ({
  severity: 'warning',
  message: `Warning ${n}.`,
  hint: 'h',
  line: n,
});

describe('the findings a check lists', () => {
  it('lists three alike and counts the rest in one finding of the same severity, pointing at the next', () => {
    const findings = Array.from({ length: 20_000 }, (_, i) => noAlt(i + 1));
    const check = checkOf('images', findings);
    expect(SAME_LISTED).toBe(3);
    expect(check.findings).toEqual([
      noAlt(1),
      noAlt(2),
      noAlt(3),
      {
        severity: 'error',
        message: 'The same in 19,997 more places (lines 4, 5, 6, 7, 8, …).',
        hint: 'Fix them the same way.',
        line: 4,
      },
    ]);
    expect(check.status).toBe('error');
  });

  it('keeps the order found, each fold right after the third of its kind; one more is "place"', () => {
    const info: Finding = { severity: 'info', message: 'Note.', hint: 'h' };
    const folded = foldFindings([noAlt(1), info, noAlt(2), noAlt(3), info, noAlt(4), warning(9)]);
    expect(folded).toEqual([
      noAlt(1),
      info,
      noAlt(2),
      noAlt(3),
      {
        severity: 'error',
        message: 'The same in 1 more place (line 4).',
        hint: 'Fix them the same way.',
        line: 4,
      },
      info,
      warning(9),
    ]);
    // Without lines, the count alone.
    expect(foldFindings([info, info, info, info, info]).at(-1)).toEqual({
      severity: 'info',
      message: 'The same in 2 more places.',
      hint: 'Fix them the same way.',
    });
  });

  it(`lists at most ${MAX_LISTED}: the most severe, in order, and one that counts the others with their worst severity`, () => {
    const errors = Array.from({ length: 5 }, (_, i): Finding => ({
      ...noAlt(100 + i),
      message: `Error ${i}.`,
    }));
    const warnings = Array.from({ length: 40 }, (_, i) => warning(i + 1));
    const infos = Array.from({ length: 3 }, (_, i): Finding => ({
      severity: 'info',
      message: `Info ${i}.`,
      hint: 'h',
    }));
    const check = checkOf('links', [...warnings.slice(0, 10), ...errors, ...warnings.slice(10), ...infos]);
    expect(check.findings).toHaveLength(MAX_LISTED);
    expect(check.findings.slice(0, 29)).toEqual([
      ...warnings.slice(0, 10),
      ...errors,
      ...warnings.slice(10, 24),
    ]);
    expect(check.findings[29]).toEqual({
      severity: 'warning',
      message: '19 more findings are not listed.',
      hint: 'Fix the ones above and check again: what is left is listed then.',
    });
    expect(check.status).toBe('error');
    // Only infos left out: the last finding is an info, and the check still passes.
    const notes = checkOf(
      'content',
      Array.from({ length: 31 }, (_, i): Finding => ({ severity: 'info', message: `N${i}`, hint: 'h' })),
    );
    expect(notes.findings.at(-1)).toMatchObject({
      severity: 'info',
      message: '2 more findings are not listed.',
    });
    expect(notes.status).toBe('pass');
    // A fold left out counts as all it stands for.
    const many = checkOf('images', [
      ...Array.from({ length: 29 }, (_, i): Finding => ({ ...noAlt(i), message: `Error ${i}.` })),
      ...Array.from({ length: 1_000 }, (_, i) => warning(i)).map((w) => ({ ...w, message: 'Alike.' })),
    ]);
    expect(many.findings.at(-1)).toMatchObject({
      severity: 'warning',
      message: '1,000 more findings are not listed.',
    });
  });

  it('leaves a checklist of a usual size as it is', () => {
    const usual = [noAlt(1), noAlt(2), warning(3), noAlt(4)];
    expect(foldFindings(usual)).toEqual(usual);
  });
});
