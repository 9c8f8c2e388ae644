import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_PATH } from '../../../tests/support/chromium.ts';
import { startLoopbackServer, type LoopbackServer } from '../../../tests/support/loopback-http.ts';
import { AppError } from '../http/errors.ts';
import { createEgress } from '../net/egress.ts';
import { createRenderer, type Renderer } from './renderer.ts';

/**
 * The renderer's queue is fair between users, as the transform pool's is
 * (docs/decisions/0120-renderer-as-the-preview-and-fair.md, 0117-fair-transform-queue.md): a free
 * page takes the render of the user with the fewest running, then served longest ago, then the
 * oldest; a user may have only so many renders waiting. Renders hold their page while their image
 * (on a loopback server) has not answered, so the order in which the server sees the images is the
 * order in which the renders started.
 */

const ONE_PIXEL = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

describe('the render queue', () => {
  let server: LoopbackServer;
  let renderer: Renderer;
  /** Answers held back, by path. */
  const held = new Map<string, ServerResponse>();
  const answer = (res: ServerResponse) => {
    if (res.headersSent) return;
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(ONE_PIXEL);
  };

  beforeAll(async () => {
    server = await startLoopbackServer((req, res) => {
      if (req.url?.startsWith('/hold/')) held.set(req.url, res);
      else answer(res);
    });
    renderer = createRenderer({
      chromiumPath: CHROMIUM_PATH,
      searchPath: '',
      egress: createEgress({ allowLoopback: true }),
      pages: 1,
      budgetMs: 20_000,
      maxQueuedPerOwner: 2,
    });
  });
  afterAll(async () => {
    for (const res of held.values()) answer(res);
    await renderer?.close();
    await server?.close();
  });

  const renderOn = (on: Renderer, userId: string, image: string) =>
    on.render({
      html: `<!DOCTYPE html><html><body style="margin:0"><img src="${server.url}${image}" width="10" height="10"></body></html>`,
      width: 320,
      mode: 'light',
      format: 'png',
      userId,
    });
  const render = (userId: string, image: string) => renderOn(renderer, userId, image);
  const seen = () => server.requests.map((r) => r.path);
  async function until(what: () => boolean, label: string): Promise<void> {
    for (const started = Date.now(); !what();) {
      if (Date.now() - started > 15_000) throw new Error(`timed out waiting for ${label}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('serves another user before the rest of a flood, and refuses a flood beyond its share with 429', async () => {
    const first = render('flood', '/hold/a1.png');
    await until(() => held.has('/hold/a1.png'), 'the first render to hold the page');
    const waiting = [render('flood', '/a2.png'), render('flood', '/a3.png')];
    // A third waiting render of the same user is turned away at once.
    const refused = await Promise.race([
      render('flood', '/a4.png').then(
        () => 'rendered',
        (err: unknown) => err,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1_000)),
    ]);
    expect(refused).toBeInstanceOf(AppError);
    const error = refused as AppError;
    expect([error.statusCode, error.code, error.retryAfterS]).toEqual([429, 'too_many_renders', 5]);
    expect(error.message).toBe(
      'You have too many renders waiting at once. Wait for them to finish, then try again.',
    );
    // Another user's render, which came last, takes the page next.
    const other = render('other', '/b1.png');
    answer(held.get('/hold/a1.png')!);
    await Promise.all([first, other, ...waiting]);
    expect(seen()).toEqual(['/hold/a1.png', '/b1.png', '/a2.png', '/a3.png']);
  });

  it("makes room in a full queue for another user's render by turning away the flood's newest", async () => {
    // Before, four users each under their share filled the 16 places, and everyone else's export
    // was 503 at once (docs/decisions/0120-renderer-as-the-preview-and-fair.md).
    const small = createRenderer({
      chromiumPath: CHROMIUM_PATH,
      searchPath: '',
      egress: createEgress({ allowLoopback: true }),
      pages: 1,
      budgetMs: 20_000,
      maxQueue: 4,
      maxQueuedPerOwner: 4,
    });
    try {
      const settled = new Map<string, unknown>();
      const renderSmall = (userId: string, image: string) =>
        renderOn(small, userId, image).then(
          () => settled.set(image, 'rendered'),
          (err: unknown) => settled.set(image, err),
        );
      const from = seen().length;
      const renders = [renderSmall('flood', '/hold/q1.png')];
      await until(() => held.has('/hold/q1.png'), 'the first render to hold the page');
      // The flood's next four fill the queue.
      renders.push(
        ...['/q2.png', '/q3.png', '/q4.png', '/q5.png'].map((image) => renderSmall('flood', image)),
      );
      // Another user's render takes the place of the flood's newest, at once, and so does its
      // second (the flood would still have three waiting to its two); its third would leave it with
      // more waiting than the flood, and is the one refused.
      renders.push(...['/v1.png', '/v2.png', '/v3.png'].map((image) => renderSmall('other', image)));
      await until(() => settled.size >= 3, 'the turned-away renders');
      expect([...settled.keys()].sort()).toEqual(['/q4.png', '/q5.png', '/v3.png']);
      for (const err of settled.values()) {
        // As a full queue refuses: the code export.routes.ts gives back to the render limit.
        expect(err).toBeInstanceOf(AppError);
        const { statusCode, code, retryAfterS, message } = err as AppError;
        expect([statusCode, code, retryAfterS, message]).toEqual([
          503,
          'render_busy',
          5,
          'The renderer is busy with other renders. Try again in a few seconds.',
        ]);
      }
      // The other user's renders go in turn with the flood's, and the flood's turned-away ones never.
      answer(held.get('/hold/q1.png')!);
      await Promise.all(renders);
      expect(seen().slice(from)).toEqual(['/hold/q1.png', '/v1.png', '/q2.png', '/v2.png', '/q3.png']);
    } finally {
      await small.close();
    }
  });
});
