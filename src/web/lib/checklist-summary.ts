import type { Check } from '../../shared/contract/checks.ts';

/** Errors and warnings across a checklist (info findings are notes, not problems). */
export function countFindings(checks: readonly Check[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const check of checks)
    for (const f of check.findings) {
      if (f.severity === 'error') errors++;
      else if (f.severity === 'warning') warnings++;
    }
  return { errors, warnings };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** "2 errors, 3 warnings", "1 warning", or "All checks passed". */
export function checklistSummary(checks: readonly Check[]): string {
  const { errors, warnings } = countFindings(checks);
  if (errors === 0 && warnings === 0) return 'All checks passed';
  return [errors > 0 && plural(errors, 'error'), warnings > 0 && plural(warnings, 'warning')]
    .filter(Boolean)
    .join(', ');
}
