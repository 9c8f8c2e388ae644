import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { discardEntry, entryUsed, temporaryEntry } from './build-cache.ts';

/**
 * Production builds of web code for browser tests and benchmarks, cached in
 * node_modules/.cache/proofmail-web-builds/<key>/. The key is a hash of everything the build
 * reads (the listed files and folders, byte for byte, the lockfile, the Node version and the
 * VITE_* environment), so a change to any input makes a new key: a stale build is never served,
 * and an unchanged tree skips Vite entirely. A build is written to a temporary folder and renamed
 * into place, so a directory under its key is always complete; entries are never modified after
 * that, so concurrent runs can share them.
 */

const root = path.resolve(import.meta.dirname, '../..');
const CACHE_DIR = path.join(root, 'node_modules/.cache/proofmail-web-builds');

export interface WebBuild {
  /** The folder with index.html and assets. */
  dir: string;
  /** False when the cache already had it. */
  built: boolean;
  ms: number;
}

export interface WebBuildSpec {
  /** Names the entry (e.g. `app`); part of the key. */
  name: string;
  /** Files and folders, relative to the repository root, whose bytes the build depends on. */
  inputs: string[];
  /** VITE_* variables the build sets itself (they replace the shell's in the key). */
  viteEnv?: Record<string, string>;
  /** Builds into `outDir` (empty, to be filled); throws on failure. */
  build: (outDir: string) => void | Promise<void>;
}

function listFiles(relative: string): string[] {
  const full = path.join(root, relative);
  const stat = fs.statSync(full, { throwIfNoEntry: false });
  if (!stat) return [];
  if (!stat.isDirectory()) return [relative];
  return fs
    .readdirSync(full)
    .sort()
    .flatMap((entry) => listFiles(path.join(relative, entry)));
}

/** The cache key of a spec: a hash of its inputs' paths and bytes, and of the build environment. */
export function buildKey(spec: Pick<WebBuildSpec, 'name' | 'inputs' | 'viteEnv'>): string {
  const hash = createHash('sha256');
  hash.update(`${spec.name}\0${process.version}\0`);
  const vite = Object.entries({ ...process.env, ...spec.viteEnv })
    .filter(([k]) => k.startsWith('VITE_'))
    .sort(([a], [b]) => a.localeCompare(b));
  hash.update(JSON.stringify(vite));
  for (const file of [...new Set(spec.inputs.flatMap(listFiles))].sort()) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return `${spec.name}-${hash.digest('hex').slice(0, 24)}`;
}

/** The build for `spec` from the cache, building it first when its inputs changed. */
export async function cachedWebBuild(spec: WebBuildSpec): Promise<WebBuild> {
  const started = Date.now();
  const key = buildKey(spec);
  const dir = path.join(CACHE_DIR, key);
  let built = false;
  if (!fs.existsSync(dir)) {
    const tmp = temporaryEntry(CACHE_DIR, key);
    try {
      await spec.build(tmp);
      if (!fs.existsSync(path.join(tmp, 'index.html')))
        throw new Error(`the ${spec.name} build wrote no index.html`);
      fs.renameSync(tmp, dir);
      built = true;
    } catch (err) {
      discardEntry(tmp, dir, err);
    }
  }
  entryUsed(CACHE_DIR, key);
  return { dir, built, ms: Date.now() - started };
}

/** Environment files Vite reads (vite.config.ts sets envDir to the repository root). */
const envFiles = () => fs.readdirSync(root).filter((f) => f.startsWith('.env') && f !== '.env.example');

/** The app's SPA as `npm run build` makes it (vite.config.ts), for one-origin serving. */
export function webAppBuild(): Promise<WebBuild> {
  return cachedWebBuild({
    name: 'app',
    inputs: ['src/web', 'src/shared', 'vite.config.ts', 'tsconfig.json', 'package-lock.json', ...envFiles()],
    // A VITE_API_URL from the developer's shell must not leak in (the app is served on one origin).
    viteEnv: { VITE_API_URL: '' },
    build: (outDir) => {
      const vite = path.join(root, 'node_modules/vite/bin/vite.js');
      const result = spawnSync(
        process.execPath,
        [vite, 'build', '--outDir', outDir, '--emptyOutDir', '--logLevel', 'warn'],
        // A test runner's NODE_ENV=test would make Vite bundle React's development build.
        { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production', VITE_API_URL: '' } },
      );
      if (result.status !== 0) throw new Error(`vite build failed (exit ${result.status ?? result.signal})`);
    },
  });
}
