import { describe, expect, it } from 'vitest';
import type { Check } from '../../shared/contract/checks.ts';
import { checklistSummary } from './checklist-summary.ts';

const check = (severities: ('error' | 'warning' | 'info')[]): Check => ({
  id: 'links',
  title: 'Links',
  status: 'pass',
  findings: severities.map((severity) => ({ severity, message: 'm', hint: 'h' })),
});

describe('checklistSummary', () => {
  it('counts errors and warnings, not notes', () => {
    expect(
      checklistSummary([check(['error', 'warning']), check(['error', 'warning', 'warning', 'info'])]),
    ).toBe('2 errors, 3 warnings');
    expect(checklistSummary([check(['warning'])])).toBe('1 warning');
    expect(checklistSummary([check(['error'])])).toBe('1 error');
    expect(checklistSummary([check(['info']), check([])])).toBe('All checks passed');
  });
});
