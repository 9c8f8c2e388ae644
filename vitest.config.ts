import { defineConfig } from 'vitest/config';

// Two projects: `server` (unit + API tests on a real embedded PostgreSQL) and `e2e` (the built app
// driven in Chromium). Each starts one PostgreSQL cluster per run (globalSetup); files get fresh
// databases cloned from a migrated template.
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
          maxWorkers: 1,
          fileParallelism: false,
        },
      },
    ],
  },
});
