import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Which Chromium the renderer drives (docs/decisions/0080-renderer-locked-down.md): CHROMIUM_PATH
 * when set, and then only that file (a missing one, or one that does not run, turns the renderer
 * off rather than picking another browser); else the first of chromium, chromium-browser,
 * google-chrome on PATH that runs.
 *
 * "Runs" is `--version` answering with status 0 within 10 s: an executable file is not enough
 * (`CHROMIUM_PATH=/bin/false`, a browser missing its libraries). It costs one short process
 * (about 0.1 s for Debian's chromium), once per file and process: apps built again in one process
 * (tests build many) reuse the answer. A Chromium that runs this but cannot start a browser is
 * turned off by the renderer after a few launches fail in a row (renderer.ts).
 */

export type ChromiumLookup = { path: string } | { path: null; reason: string };

const NAMES = ['chromium', 'chromium-browser', 'google-chrome'];
const PROBE_TIMEOUT_MS = 10_000;

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Why `file --version` failed, or null when it answered; remembered per file for the process. */
const probed = new Map<string, string | null>();
function whyItDoesNotRun(file: string): string | null {
  if (probed.has(file)) return probed.get(file)!;
  const result = spawnSync(file, ['--version'], {
    timeout: PROBE_TIMEOUT_MS,
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  const said = `${result.stderr ?? ''}`.trim().split('\n')[0]?.slice(0, 200);
  const why = result.error
    ? result.error.message
    : result.status !== 0
      ? `\`${file} --version\` ${result.signal ? `was stopped by ${result.signal}` : `exited with status ${result.status}`}${said ? `: ${said}` : ''}`
      : null;
  probed.set(file, why);
  return why;
}

export function findChromium(config: { chromiumPath: string | null; searchPath: string }): ChromiumLookup {
  if (config.chromiumPath) {
    if (!isExecutable(config.chromiumPath))
      return { path: null, reason: `CHROMIUM_PATH (${config.chromiumPath}) is not an executable file` };
    const why = whyItDoesNotRun(config.chromiumPath);
    return why === null
      ? { path: config.chromiumPath }
      : { path: null, reason: `CHROMIUM_PATH (${config.chromiumPath}) does not run (${why})` };
  }
  const broken: string[] = [];
  for (const dir of config.searchPath.split(path.delimiter).filter(Boolean)) {
    for (const name of NAMES) {
      const file = path.join(dir, name);
      if (!isExecutable(file)) continue;
      const why = whyItDoesNotRun(file);
      if (why === null) return { path: file };
      broken.push(`${file} does not run (${why})`);
    }
  }
  return {
    path: null,
    reason: broken.length
      ? `${broken.join('; ')}, and CHROMIUM_PATH is not set`
      : `none of ${NAMES.join(', ')} is on PATH and CHROMIUM_PATH is not set`,
  };
}
