// `npm test`: every suite (unit, API, browser), then one closing line `N passed, N failed`.
// Extra arguments go to vitest (e.g. `npm test -- --project server`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const summary = path.join(os.tmpdir(), `proofmail-test-summary-${process.pid}.json`);
const args = [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=./tests/support/summary-reporter.ts',
  ...process.argv.slice(2),
];
const result = spawnSync('npx', args, {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, PROOFMAIL_TEST_SUMMARY: summary },
});

let counts = { passed: 0, failed: 0, skipped: 0 };
try {
  counts = JSON.parse(fs.readFileSync(summary, 'utf8'));
  fs.rmSync(summary, { force: true });
} catch {
  counts.failed = Math.max(1, counts.failed); // vitest died before reporting
}
const failed = result.status !== 0 && counts.failed === 0 ? 1 : counts.failed;
console.log(
  `${counts.passed} passed, ${failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}`,
);
process.exit(failed > 0 || result.status !== 0 ? 1 : 0);
