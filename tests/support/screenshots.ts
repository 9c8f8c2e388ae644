import fs from 'node:fs';
import path from 'node:path';
import type { Locator, Page } from 'playwright-core';

/**
 * Screenshots of the screens, for a person to look at them (at 1280 and 375 px, light and dark):
 * taken only when `SHOTS_DIR` names a folder, e.g.
 * `SHOTS_DIR=/tmp/shots npm test -- tests/e2e/auth-screens.test.ts`. A normal run spends no
 * Chromium time on them (a full-page screenshot lays the whole page out again and encodes a PNG)
 * and writes no files. The tests around them assert what a machine can (no sideways overflow, no
 * console errors) either way.
 */
export const SHOTS_DIR = process.env.SHOTS_DIR || undefined;

/** Saves `target` as `<SHOTS_DIR>/<name>.png` when SHOTS_DIR is set: a page whole (full page), or one element. */
export async function shot(target: Page | Locator, name: string): Promise<void> {
  if (!SHOTS_DIR) return;
  fs.mkdirSync(SHOTS_DIR, { recursive: true });
  const file = path.join(SHOTS_DIR, `${name}.png`);
  if ('goto' in target) await target.screenshot({ path: file, fullPage: true });
  else await target.screenshot({ path: file });
}
