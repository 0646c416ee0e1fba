import type { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';

/**
 * Lets the app close without waiting for connections that never sent a byte. Fastify's close
 * waits for connections with a request in flight and closes idle ones between requests, but
 * Node counts a connection on which no request has begun as neither: close then waited for
 * its header timeout (60 s, checked every 30 s). Load balancers and HTTP clients open such
 * connections ahead of use, so SIGTERM took up to 90 s instead of the render grace period.
 * A connection that has sent nothing has nothing to answer; it is closed when the app starts
 * closing, as is one that arrives after that.
 */
export function closeUnusedConnectionsOnClose(app: FastifyInstance): void {
  const open = new Set<Socket>();
  let closing = false;
  app.server.on('connection', (socket: Socket) => {
    if (closing) return void socket.destroy();
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', (done) => {
    closing = true;
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
    done();
  });
}
