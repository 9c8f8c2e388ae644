import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * A folder of cached builds (web-build.ts, script-bundle.ts): one directory per key, filled under
 * a temporary name and renamed into place, so a directory under its key is always complete and
 * concurrent processes can share it; marked used by its modification time.
 */

/** Entries beyond the newest few that nobody used for this long are deleted. */
const KEEP = 4;
const STALE_MS = 60 * 60_000;

/** A new empty folder in `cacheDir` to fill for `key`, then rename to `key`'s directory. */
export function temporaryEntry(cacheDir: string, key: string): string {
  fs.mkdirSync(cacheDir, { recursive: true });
  const tmp = path.join(cacheDir, `.${key}-${process.pid}-${randomBytes(4).toString('hex')}`);
  fs.mkdirSync(tmp);
  return tmp;
}

/**
 * Removes `tmp` after filling or renaming it failed with `err`, which it throws again unless
 * another process placed `dir` meanwhile: theirs is as good as ours.
 */
export function discardEntry(tmp: string, dir: string, err: unknown): void {
  fs.rmSync(tmp, { recursive: true, force: true });
  if (!fs.existsSync(dir)) throw err;
}

/**
 * Marks `key`'s directory used and deletes what `cacheDir` holds beyond the newest few, when
 * unused for an hour.
 */
export function entryUsed(cacheDir: string, key: string): void {
  const now = new Date();
  fs.utimesSync(path.join(cacheDir, key), now, now);
  const entries = fs
    .readdirSync(cacheDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== key)
    .map((e) => path.join(cacheDir, e.name))
    .map((dir) => ({ dir, mtime: fs.statSync(dir).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { dir, mtime } of entries.slice(KEEP - 1)) {
    // Leftovers of an interrupted build start with a dot; either way, only long-unused ones go.
    if (Date.now() - mtime > STALE_MS) fs.rmSync(dir, { recursive: true, force: true });
  }
}
