import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';

/** One request a receiver got, as it arrived. */
export interface Received {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingHttpHeaders;
  /** Header names and values in wire order and spelling. */
  rawHeaders: string[];
  body: Buffer;
}

/** What the receiver answers; `hang` never answers (the connection stays open until close). */
export type Reply = { status?: number; headers?: Record<string, string>; body?: string | Buffer } | 'hang';

/** A local HTTP server standing in for a webhook target. */
export interface Receiver {
  readonly url: string;
  readonly port: number;
  readonly requests: Received[];
  /** Waits until `n` requests have arrived (fails after `timeoutMs`). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
  close(): Promise<void>;
}

/** Where a receiver listens: another loopback address, or HTTPS with a key and certificate. */
export interface ReceiverOptions {
  /** @defaultValue 127.0.0.1 */
  host?: string;
  tls?: { key: Buffer; cert: Buffer };
}

/** Starts a receiver on 127.0.0.1; `handler` decides each answer (default 200 "ok"). */
export async function startReceiver(handler: (req: Received, index: number) => Reply | Promise<Reply> = () => ({}), opts: ReceiverOptions = {}): Promise<Receiver> {
  const requests: Received[] = [];
  const hanging = new Set<ServerResponse>();
  const host = opts.host ?? '127.0.0.1';
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks) };
      const index = requests.push(received) - 1;
      void Promise.resolve(handler(received, index)).then((reply) => {
        if (reply === 'hang') {
          hanging.add(res);
          return;
        }
        res.writeHead(reply.status ?? 200, reply.headers ?? {}).end(reply.body ?? 'ok');
      });
    });
  };
  const server: Server = opts.tls ? createTlsServer({ key: opts.tls.key, cert: opts.tls.cert }, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${host}:${port}`,
    port,
    requests,
    async waitFor(n, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${requests.length} of ${n} requests: ${requests.map((r) => `${r.method} ${r.url}`).join(', ')}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return requests;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
