import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Closing the app stops new connections and lets requests under way finish. Node's server also
 * drops idle keep-alive connections then, but it waits for a connection that never sent a request
 * (a browser's preconnect) until its headers timeout: 60 to 90 s, past main.ts's 30 s limit for a
 * shutdown, which then exits 1. This drops every connection with no request under way as the app
 * closes, and any that opens while it closes (docs/decisions/0101-close-drops-unused-connections.md).
 */
export function dropUnusedConnectionsOnClose(app: FastifyInstance): void {
  const requests = new Map<Socket, number>();
  let closing = false;
  app.server.on('connection', (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    requests.set(socket, 0);
    socket.once('close', () => requests.delete(socket));
  });
  app.server.on('request', (req, res) => {
    const socket = req.socket;
    requests.set(socket, (requests.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const count = requests.get(socket);
      if (count === undefined) return; // the connection is gone already
      requests.set(socket, count - 1);
      if (closing && count === 1) socket.destroy();
    });
  });
  app.addHook('preClose', (done) => {
    closing = true;
    for (const [socket, count] of requests) if (count === 0) socket.destroy();
    done();
  });
}
