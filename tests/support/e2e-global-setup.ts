import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Directory of the web build the browser tests serve (index.html + assets). */
    webRoot: string;
  }
}

const root = path.resolve(import.meta.dirname, '../..');

/**
 * Builds the web app once per browser-test run, into a private temporary directory: the tests
 * always see the current sources, and a concurrent `npm start` or another run's build
 * (which empties dist/web) cannot pull files from under a running test.
 * E2E_WEB_ROOT=<dir> reuses an existing build instead (quick reruns).
 */
export default function setup(project: TestProject) {
  const reuse = process.env.E2E_WEB_ROOT;
  if (reuse) {
    const dir = path.resolve(reuse);
    if (!fs.existsSync(path.join(dir, 'index.html')))
      throw new Error(`E2E_WEB_ROOT=${reuse} has no index.html`);
    project.provide('webRoot', dir);
    return;
  }
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'proofmail-e2e-web-'));
  const started = Date.now();
  const result = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/vite/bin/vite.js'),
      'build',
      '--outDir',
      outDir,
      '--emptyOutDir',
      '--logLevel',
      'warn',
    ],
    // vitest sets NODE_ENV=test, which would make Vite bundle React's development build; and a
    // VITE_API_URL from the developer's shell must not leak in (the tests use one origin).
    { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production', VITE_API_URL: '' } },
  );
  if (result.status !== 0) {
    fs.rmSync(outDir, { recursive: true, force: true });
    throw new Error(
      `Building the web app for browser tests failed (vite exit ${result.status ?? result.signal})`,
    );
  }
  console.log(`[e2e] web app built in ${((Date.now() - started) / 1000).toFixed(1)}s → ${outDir}`);
  project.provide('webRoot', outDir);
  return () => fs.rmSync(outDir, { recursive: true, force: true });
}
