import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { createTestApp } from '../support/test-app.ts';

/**
 * A client that sends its request body a byte at a time cannot hold a connection for ever
 * (REQUEST_TIMEOUT_MS, src/server/app.ts): after the timeout the server answers 408 and closes it,
 * while a request sent at once is answered as usual.
 */
it('ends a request whose body does not arrive within REQUEST_TIMEOUT_MS with a 408, and serves the others', async () => {
  const t = await createTestApp({ env: { REQUEST_TIMEOUT_MS: '1000' } });
  try {
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = t.app.server.address() as AddressInfo;
    const host = new URL(t.config.publicUrl).host;

    const slow = net.connect(port, '127.0.0.1');
    await once(slow, 'connect');
    let answer = '';
    slow.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const closed = once(slow, 'close');
    slow.write(
      `POST /api/auth/signin HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
    );
    // One more byte every 200 ms: never idle, never done.
    const drip = setInterval(() => slow.write(' '), 200);
    try {
      await closed;
    } finally {
      clearInterval(drip);
    }
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('{"error":"The request took too long to arrive","code":"request_timeout"}');

    const res = await fetch(`http://127.0.0.1:${port}/api/health`, { headers: { host } });
    expect(res.status).toBe(200);
  } finally {
    await t.app.close().catch(() => undefined);
    await t.close();
  }
}, 30_000);
