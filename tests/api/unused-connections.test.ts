import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { createTestApp } from '../support/test-app.ts';

/**
 * Closing the app (src/server/http/unused-connections.ts): a connection that never sent a request,
 * as a browser's preconnect leaves, is dropped at once instead of holding the close for the
 * headers timeout (60–90 s, longer than this test's 30 s); a request under way still gets its
 * answer.
 */
it('closing drops a connection that never sent a request and lets a request under way finish', async () => {
  const t = await createTestApp();
  let closing: Promise<void> | undefined;
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const connect = async () => {
      const socket = net.connect(port, '127.0.0.1');
      await once(socket, 'connect');
      return socket;
    };

    const unused = await connect();
    const unusedClosed = once(unused, 'close');

    // A request whose body has not all arrived: under way until the rest comes.
    const busy = await connect();
    let answer = '';
    busy.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const busyEnded = once(busy, 'close');
    const body = JSON.stringify({ email: 'nobody@example.com', password: 'not the password' });
    const seen = once(t.app.server, 'request');
    busy.write(
      `POST /api/auth/signin HTTP/1.1\r\nHost: ${new URL(t.config.publicUrl).host}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await seen;

    closing = t.app.close();
    await unusedClosed;
    expect(busy.destroyed).toBe(false);
    expect(answer).toBe('');

    busy.write(body.slice(10));
    await busyEnded;
    expect(answer).toMatch(/^HTTP\/1\.1 401 /);
    await closing;
  } finally {
    await (closing ?? t.app.close()).catch(() => undefined);
    await t.close();
  }
});
