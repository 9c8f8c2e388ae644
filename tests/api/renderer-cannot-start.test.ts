import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RENDER_MESSAGES } from '../../src/shared/contract/render.ts';
import { AppError } from '../../src/server/http/errors.ts';
import { createEgress } from '../../src/server/net/egress.ts';
import { createRenderer, LAUNCH_FAILURES_TO_OFF } from '../../src/server/render/renderer.ts';
import { createTestContext, type TestContext } from '../support/test-app.ts';
import { createUser, type TestUser } from '../support/users.ts';

/*
 * A Chromium that is there but cannot run turns the renderer off, as a missing one does
 * (docs/decisions/0080-renderer-locked-down.md, amended 2026-11-28): at start when it does not
 * answer `--version` (one "Renderer off" line, /api/config says so, the routes answer
 * renderer_unavailable), and after LAUNCH_FAILURES_TO_OFF launches failed in a row when it answers
 * that but cannot start a browser.
 */

describe('CHROMIUM_PATH is an executable that does not run', () => {
  let ctx: TestContext;
  let user: TestUser;
  beforeAll(async () => {
    ctx = await createTestContext({ env: { CHROMIUM_PATH: '/bin/false' } });
    user = await createUser(ctx.db);
  });
  afterAll(() => ctx?.close());

  it('is off from the start: one log line with the reason and the fix, /api/config, 503 renderer_unavailable', async () => {
    expect((await ctx.app.inject({ method: 'GET', url: '/api/config' })).json().renderer).toBe(false);
    const logs = ctx.logs();
    expect(logs).toMatch(
      /Renderer off .*CHROMIUM_PATH \(\/bin\/false\) does not run \(`\/bin\/false --version` exited with status 1\).*set CHROMIUM_PATH/,
    );
    expect(logs.match(/Renderer off/g)).toHaveLength(1);
    const sent = await ctx.app.inject({
      method: 'POST',
      url: '/api/email/send',
      headers: user.headers,
      payload: { to: 'client@example.com', html: '<p>Hi</p>' },
    });
    const res = await ctx.app.inject({
      method: 'GET',
      url: `/api/email/${sent.json().id}/export.png`,
      headers: user.headers,
    });
    expect([res.statusCode, res.json()]).toEqual([
      503,
      { error: RENDER_MESSAGES.unavailable, code: 'renderer_unavailable' },
    ]);
  });
});

describe('a Chromium that answers --version but cannot start a browser', () => {
  let dir: string;
  let fake: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'proofmail-chromium-'));
    fake = path.join(dir, 'chromium');
    fs.writeFileSync(
      fake,
      '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "Chromium 150"; exit 0; fi\necho "cannot open display" >&2\nexit 1\n',
      { mode: 0o755 },
    );
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(`turns itself off after ${LAUNCH_FAILURES_TO_OFF} failed launches in a row, and says why once`, async () => {
    const off: string[] = [];
    const renderer = createRenderer({
      chromiumPath: fake,
      searchPath: '',
      egress: createEgress({ allowLoopback: false }),
      pages: 2,
      budgetMs: 10_000,
      onOff: (reason) => off.push(reason),
    });
    expect(renderer.available).toBe(true);
    const render = () =>
      renderer.render({ html: '<p>x</p>', width: 320, mode: 'light', format: 'png', userId: 'u' }).then(
        () => null,
        (err: unknown) => (err instanceof AppError ? err.code : String(err)),
      );
    // Two renders waiting for one launch count as one failure.
    expect(await Promise.all([render(), render()])).toEqual(['render_failed', 'render_failed']);
    for (let i = 1; i < LAUNCH_FAILURES_TO_OFF - 1; i++) expect(await render()).toBe('render_failed');
    expect(renderer.available).toBe(true);
    expect(await render()).toBe('renderer_unavailable');
    expect(renderer.available).toBe(false);
    expect(renderer.unavailableReason).toMatch(
      new RegExp(
        `Chromium \\(${fake.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}\\) did not start ${LAUNCH_FAILURES_TO_OFF} times in a row`,
      ),
    );
    expect(await render()).toBe('renderer_unavailable');
    expect(off).toEqual([renderer.unavailableReason]);
    await renderer.close();
  }, 60_000);
});
