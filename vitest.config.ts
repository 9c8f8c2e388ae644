import os from 'node:os';
import { defineConfig } from 'vitest/config';

// Two projects: `server` (unit + API tests on a real embedded PostgreSQL) and `e2e` (the built app
// driven in Chromium). Each starts one PostgreSQL cluster per run (globalSetup); files get fresh
// databases cloned from a migrated template, and every browser-test file its own app server, so
// files of both projects run side by side. Vitest's default on two cores would be one worker (one
// file at a time): the e2e files mostly wait on the browser and the server files on PostgreSQL
// and child processes. One worker more than the cores: with one per core, a tenth of the run's
// CPU time was idle while both files waited (docs/decisions/0099-one-test-worker-more-than-cores.md).
const workers = os.availableParallelism() + 1;
// Files share each worker's module cache (isolate: false): every file still gets its own database
// (and, in e2e, its own app server and browser contexts), and importing the app's modules once per
// worker instead of once per file took the server project from 159 s to 121 s on two cores
// (docs/decisions/0092-test-files-share-a-worker-module-cache.md).
const isolate = false;

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'server',
          environment: 'node',
          include: [
            'src/**/*.test.ts',
            'tests/api/**/*.test.ts',
            'tests/security/**/*.test.ts',
            'eslint-rules/**/*.test.js',
          ],
          globalSetup: ['tests/support/global-setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          pool: 'forks',
          isolate,
          maxWorkers: workers,
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['tests/e2e/**/*.test.ts'],
          globalSetup: ['tests/support/global-setup.ts', 'tests/support/e2e-global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 90_000,
          pool: 'forks',
          isolate,
          // Both projects in one group (same groupOrder and maxWorkers), so they overlap.
          maxWorkers: workers,
          // expect.poll's default (1 s) is too short for a page on a busy machine.
          expect: { poll: { timeout: 15_000 } },
        },
      },
    ],
  },
});
