import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { bundleServer } from '../../scripts/server-bundle.mjs';
import { discardEntry, entryUsed, temporaryEntry } from './build-cache.ts';

/**
 * The scripts tests and benchmarks start as child processes (the app, the mail worker, the admin
 * CLI, fixtures), bundled as `npm start` bundles the server (scripts/server-bundle.mjs) instead of
 * run through tsx: a process then starts on about 0.5 s of CPU instead of 1.3 s, which tsx spends
 * compiling the same modules again in every process.
 *
 * Each test process bundles a script once (about 0.15 s) into
 * node_modules/.cache/proofmail-scripts/<name>-<hash of the output>/, with the transform process
 * and its measuring thread beside it, where a bundled server looks for them (build-cache.ts keeps
 * the folder).
 *
 * The bundled app looks for the built web app two folders up from itself, as dist/server/main.js
 * does; there is none under the cache, so its pages answer "not built" as on a fresh clone. Tests
 * of pages use the e2e server (e2e-server.ts).
 */

const root = path.resolve(import.meta.dirname, '../..');
const CACHE_DIR = path.join(root, 'node_modules/.cache/proofmail-scripts');
const bundled = new Map<string, string>();

/** The bundled JavaScript of `script` (a path from the repository root, e.g. src/server/main.ts). */
export function bundledScript(script: string): string {
  const known = bundled.get(script);
  if (known) return known;
  const name = path.basename(script).replace(/\.ts$/, '');
  const files = bundleServer(root, [script], CACHE_DIR, false);
  const hash = createHash('sha256');
  for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    hash.update(`${path.basename(file.path)}\0`);
    hash.update(file.contents);
  }
  const key = `${name}-${hash.digest('hex').slice(0, 16)}`;
  const dir = path.join(CACHE_DIR, key);
  if (!fs.existsSync(dir)) {
    const tmp = temporaryEntry(CACHE_DIR, key);
    try {
      for (const file of files) fs.writeFileSync(path.join(tmp, path.basename(file.path)), file.contents);
      fs.renameSync(tmp, dir);
    } catch (err) {
      discardEntry(tmp, dir, err);
    }
  }
  entryUsed(CACHE_DIR, key);
  const file = path.join(dir, `${name}.js`);
  bundled.set(script, file);
  return file;
}
