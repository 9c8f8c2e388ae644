import fs from 'node:fs';
import path from 'node:path';

/**
 * Which Chromium the renderer drives (docs/decisions/0080-renderer-locked-down.md): CHROMIUM_PATH
 * when set, and then only that file (a missing one turns the renderer off rather than picking
 * another browser); else the first of chromium, chromium-browser, google-chrome on PATH.
 */

export type ChromiumLookup = { path: string } | { path: null; reason: string };

const NAMES = ['chromium', 'chromium-browser', 'google-chrome'];

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function findChromium(config: { chromiumPath: string | null; searchPath: string }): ChromiumLookup {
  if (config.chromiumPath) {
    return isExecutable(config.chromiumPath)
      ? { path: config.chromiumPath }
      : { path: null, reason: `CHROMIUM_PATH (${config.chromiumPath}) is not an executable file` };
  }
  for (const dir of config.searchPath.split(path.delimiter).filter(Boolean)) {
    for (const name of NAMES) {
      const file = path.join(dir, name);
      if (isExecutable(file)) return { path: file };
    }
  }
  return { path: null, reason: `none of ${NAMES.join(', ')} is on PATH and CHROMIUM_PATH is not set` };
}
