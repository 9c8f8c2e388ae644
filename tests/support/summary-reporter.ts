import fs from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Counts every test of the run and writes `{ passed, failed, skipped }` to the file named by
 * PROOFMAIL_TEST_SUMMARY; scripts/test.mjs prints it as the final `N passed, N failed` line.
 * A module that failed to load (syntax error, failing hook) counts as one failure.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const mod of modules) {
      let tests = 0;
      for (const test of mod.children.allTests()) {
        tests++;
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (mod.state() === 'failed' && tests === 0) failed++;
      else if (mod.errors().length > 0) failed++;
    }
    failed += errors.length;
    const file = process.env.PROOFMAIL_TEST_SUMMARY;
    if (file) fs.writeFileSync(file, JSON.stringify({ passed, failed, skipped }));
  }
}
