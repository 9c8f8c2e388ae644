// How the server's entry points are bundled to run as plain JavaScript (esbuild, ESM, packages
// left external): by `npm start` into dist/server (ensure-build.mjs), and by the tests for the
// processes they start (tests/support/script-bundle.ts).
import path from 'node:path';
import { buildSync } from 'esbuild';

/**
 * The transform process and its measuring thread (src/server/prepare), which a bundled server
 * expects beside its own file (bundledEntry in src/server/prepare/transform-pool.ts).
 */
export const TRANSFORM_ENTRIES = [
  'src/server/prepare/transform-worker.ts',
  'src/server/prepare/measure-thread.ts',
];

/**
 * Bundles `entries` (paths from `root`, the repository) and the transform entries into `outdir`,
 * each as `<name>.js`. With `write` false, returns the files (path and bytes) instead of writing
 * them. Throws when esbuild reports an error.
 */
export function bundleServer(root, entries, outdir, write = true) {
  const result = buildSync({
    absWorkingDir: root,
    entryPoints: [...entries, ...TRANSFORM_ENTRIES],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outdir: path.resolve(root, outdir),
    entryNames: '[name]',
    logLevel: 'warning',
    write,
  });
  return result.outputFiles ?? [];
}
