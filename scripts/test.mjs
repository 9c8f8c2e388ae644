// `npm test`: every suite (unit, API, browser), then one closing line `N passed, N failed`.
// Extra arguments go to vitest (e.g. `npm test -- --project server`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');

/** Free space /dev/shm must have for a run's temporary files to go there. */
const MEMORY_TMP_MIN_BYTES = 2 * 1024 ** 3;

/**
 * A directory in memory (/dev/shm) for the run's temporary files, unless TMPDIR is set or /dev/shm
 * is missing or small: the test PostgreSQL cluster, Chromium's profile and shared-memory files, the
 * files tests write. On disk, the writeback of that throwaway data cost the run CPU time for nothing
 * (docs/decisions/0096-test-temporary-files-in-memory.md).
 */
function memoryTmpDir() {
  if (process.env.TMPDIR) return null;
  try {
    removeStaleRuns();
    const fsStats = fs.statfsSync('/dev/shm');
    if (fsStats.bavail * fsStats.bsize < MEMORY_TMP_MIN_BYTES) return null;
    const dir = `/dev/shm/proofmail-test-${process.pid}`;
    fs.mkdirSync(dir);
    return dir;
  } catch {
    return null;
  }
}

/** What earlier runs left (a failed run keeps its files, a killed one could not remove them). */
function removeStaleRuns() {
  for (const name of fs.readdirSync('/dev/shm')) {
    const pid = /^proofmail-test-(\d+)$/.exec(name)?.[1];
    if (!pid || isRunning(Number(pid))) continue;
    fs.rmSync(path.join('/dev/shm', name), { recursive: true, force: true });
  }
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err.code === 'EPERM';
  }
}

const tmpDir = memoryTmpDir();
if (tmpDir) console.log(`[test] temporary files in memory: ${tmpDir}`);
const summary = path.join(tmpDir ?? os.tmpdir(), `proofmail-test-summary-${process.pid}.json`);
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
  env: { ...process.env, ...(tmpDir && { TMPDIR: tmpDir }), PROOFMAIL_TEST_SUMMARY: summary },
});

let counts = { passed: 0, failed: 0, skipped: 0 };
try {
  counts = JSON.parse(fs.readFileSync(summary, 'utf8'));
  fs.rmSync(summary, { force: true });
} catch {
  counts.failed = Math.max(1, counts.failed); // vitest died before reporting
}
const failed = result.status !== 0 && counts.failed === 0 ? 1 : counts.failed;
if (tmpDir && failed === 0) fs.rmSync(tmpDir, { recursive: true, force: true });
else if (tmpDir) console.log(`[test] kept for the failures' screenshots until the next run: ${tmpDir}`);
console.log(
  `${counts.passed} passed, ${failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ''}`,
);
process.exit(failed > 0 || result.status !== 0 ? 1 : 0);
