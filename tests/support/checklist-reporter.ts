import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints the security suite as a checklist (`npm run test:security`): one line per threat test,
 * grouped by the suite it belongs to, with ✓ or ✗.
 */
export default class ChecklistReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const lines: string[] = ['', 'Security checklist (docs/architecture.md §6)', ''];
    for (const mod of modules) {
      for (const test of mod.children.allTests()) {
        const state = test.result().state;
        const mark = state === 'passed' ? '✓' : state === 'failed' ? '✗' : '–';
        const suite = test.fullName.slice(0, test.fullName.length - test.name.length).replace(/ > $/, '');
        lines.push(`  ${mark} [${suite || mod.moduleId.split('/').pop()}] ${test.name}`);
      }
    }
    console.log(lines.join('\n'));
  }
}
