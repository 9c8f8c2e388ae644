import fs from 'node:fs';
import path from 'node:path';

/**
 * The housekeeping of a folder of cached builds (web-build.ts, script-bundle.ts): one directory per
 * key, complete once it has its name (written elsewhere and renamed into place), marked used by its
 * modification time.
 */

/** Entries beyond the newest few that nobody used for this long are deleted. */
const KEEP = 4;
const STALE_MS = 60 * 60_000;

/** Marks `dir` used, so that pruning keeps it. */
export function markUsed(dir: string): void {
  const now = new Date();
  fs.utimesSync(dir, now, now);
}

/** Deletes what `cacheDir` holds beyond the newest few, when unused for an hour; never `keep`. */
export function pruneCache(cacheDir: string, keep: string): void {
  const entries = fs
    .readdirSync(cacheDir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== keep)
    .map((e) => path.join(cacheDir, e.name))
    .map((dir) => ({ dir, mtime: fs.statSync(dir).mtimeMs }))
    .sort((a, b) => b.mtime - a.mtime);
  for (const { dir, mtime } of entries.slice(KEEP - 1)) {
    // Leftovers of an interrupted build start with a dot; either way, only long-unused ones go.
    if (Date.now() - mtime > STALE_MS) fs.rmSync(dir, { recursive: true, force: true });
  }
}
