import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the asset server received. */
export interface AssetHit {
  path: string;
  /** When the request arrived and when its response ended (performance.now()). */
  start: number;
  end: number;
  ifNoneMatch: string | undefined;
  ifModifiedSince: string | undefined;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

/** A local HTTP server standing in for a CDN: routes by path, records every request with its timing. */
export interface AssetServer {
  /** `http://<host>:<port>` */
  readonly base: string;
  readonly port: number;
  readonly hits: AssetHit[];
  /** Requests received for one path. */
  count(path: string): number;
  route(path: string, handler: Handler): void;
  close(): Promise<void>;
}

/** Starts an asset server on `host` (127.0.0.1 unless told) on a free port. */
export async function startAssetServer(host = '127.0.0.1'): Promise<AssetServer> {
  const routes = new Map<string, Handler>();
  const hits: AssetHit[] = [];
  const server = createServer((req, res) => {
    const path = req.url ?? '/';
    const hit: AssetHit = { path, start: performance.now(), end: Infinity, ifNoneMatch: req.headers['if-none-match'], ifModifiedSince: req.headers['if-modified-since'] };
    hits.push(hit);
    res.once('close', () => {
      hit.end = performance.now();
    });
    const handler = routes.get(path.split('?')[0]!);
    if (!handler) {
      res.writeHead(404).end('not found');
      return;
    }
    Promise.resolve(handler(req, res)).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://${host}:${port}`,
    port,
    hits,
    count: (path) => hits.filter((h) => h.path === path).length,
    route: (path, handler) => void routes.set(path, handler),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A handler answering `body` with the given headers (and a 304 when the validator matches). */
export function serve(body: Buffer, headers: Record<string, string>, opts: { delayMs?: number } = {}): Handler {
  return async (req, res) => {
    if (opts.delayMs) await new Promise((r) => setTimeout(r, opts.delayMs));
    if (headers.etag && req.headers['if-none-match'] === headers.etag) {
      res.writeHead(304, { etag: headers.etag, ...(headers['cache-control'] ? { 'cache-control': headers['cache-control'] } : {}) }).end();
      return;
    }
    if (headers['last-modified'] && req.headers['if-modified-since'] === headers['last-modified']) {
      res.writeHead(304).end();
      return;
    }
    res.writeHead(200, { 'content-length': String(body.length), ...headers }).end(body);
  };
}

/** The counters of a render log's asset summary line. */
export function counters(log: string): { requests: number; bytes: number; msec: number; cacheHits: number; failed: number } {
  const m = /assets: (\d+) downloaded \((\d+) bytes, (\d+) ms\), (\d+) from the cache, (\d+) not available/.exec(log);
  assert.ok(m, `no asset summary in the log:\n${log}`);
  return { requests: Number(m[1]), bytes: Number(m[2]), msec: Number(m[3]), cacheHits: Number(m[4]), failed: Number(m[5]) };
}
