import { Readable } from 'node:stream';
import { request, type Dispatcher } from 'undici';
import { isBlobOutage } from '../blobs/index.js';

/** A body that can be sent more than once (redirects, a retry after a token refresh). */
export type RequestBody = Buffer | { open(): Promise<Readable>; length: number };

/** One outgoing webhook request. Header names are lower case. */
export interface OutgoingRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: RequestBody;
  /** Stream bodies: chunked transfer encoding instead of Content-Length. */
  chunked?: boolean;
  /**
   * Headers sent only to the origin of `url` (the connection's authentication and configured
   * headers): a redirect to another origin drops them, as browsers and curl drop Authorization.
   */
  originOnly?: readonly string[];
}

/** Limits of one exchange. */
export interface ExchangeLimits {
  /** The whole exchange, redirects included: connect, send, wait, receive. */
  timeoutMs: number;
  /** Redirects followed; a redirect beyond them is the answer (a failure, being 3xx). */
  maxRedirects: number;
  /** Response body bytes kept (all are counted). */
  maxBodyBytes: number;
}

/** Why an exchange has no HTTP answer. */
export type FailureKind = 'timeout' | 'refused' | 'error';

/** What happened, with the numbers the ticket messages report. */
export interface Exchange {
  method: string;
  url: string;
  /** Final HTTP status; null when no answer came. */
  status: number | null;
  failure?: { kind: FailureKind; reason: string };
  /** Lower-case names; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Buffer;
  ms: number;
  bytesSent: number;
  bytesReceived: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** Credentials no other origin ever gets, whoever set them. */
const CREDENTIAL_HEADERS = ['authorization', 'proxy-authorization', 'cookie'];

/** Why a redirect is not followed, or null to follow it. */
function refusedRedirect(from: URL, to: URL): string | null {
  if (from.protocol === 'https:' && to.protocol === 'http:') return `redirect from https to http refused (${to.origin})`;
  return null;
}

async function* counted(stream: Readable, onBytes: (n: number) => void): AsyncGenerator<Buffer> {
  for await (const chunk of stream) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    onBytes(buf.length);
    yield buf;
  }
}

function flatHeaders(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The error (or one of its causes) carrying `code`, if any. */
function findCode(err: unknown, codes: readonly string[]): (Error & { code: string }) | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && codes.includes(code)) return e as Error & { code: string };
  }
  return undefined;
}

function classify(err: unknown, timedOut: boolean): { kind: FailureKind; reason: string } {
  const refused = findCode(err, ['EADDRNOTALLOWED']);
  if (refused) return { kind: 'refused', reason: refused.message };
  if (timedOut || findCode(err, ['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT'])) return { kind: 'timeout', reason: 'no complete answer in time' };
  let e: unknown = err;
  while (e instanceof Error && e.cause instanceof Error) e = e.cause;
  return { kind: 'error', reason: e instanceof Error ? e.message : String(e) };
}

/**
 * Sends one request through `dispatcher` (the guarded agent: the address policy applies to every
 * connection, redirect hops included) and reads the answer. Never throws: network failures,
 * refusals and timeouts come back as an Exchange without status. 303 turns into a GET without a
 * body; other redirects repeat the method and body, as a webhook that moved expects. Every hop
 * counts against `maxRedirects`. Once a redirect leaves the first origin (scheme, host or port),
 * the credential headers and `originOnly` are dropped for the rest of the exchange; a redirect
 * from https to http is not followed (a `refused` failure).
 */
export async function exchange(dispatcher: Dispatcher, req: OutgoingRequest, limits: ExchangeLimits): Promise<Exchange> {
  const started = performance.now();
  const signal = AbortSignal.timeout(limits.timeoutMs);
  let sent = 0;
  let received = 0;
  const result = (status: number | null, headers: Record<string, string>, body: Buffer, failure?: Exchange['failure']): Exchange => ({
    method: req.method,
    url: req.url,
    status,
    ...(failure ? { failure } : {}),
    headers,
    body,
    ms: Math.round(performance.now() - started),
    bytesSent: sent,
    bytesReceived: received,
  });
  let url = req.url;
  let method = req.method;
  let body = req.body;
  const origin = URL.canParse(req.url) ? new URL(req.url).origin : '';
  const outgoing = { ...req.headers };
  try {
    for (let hop = 0; ; hop++) {
      const headers = { ...outgoing };
      let payload: Buffer | Readable | undefined;
      if (Buffer.isBuffer(body)) {
        // Streamed too, so only bytes that really left count (none for a refused connection).
        payload = Readable.from(counted(Readable.from([body]), (n) => (sent += n)), { objectMode: false });
        headers['content-length'] = String(body.length);
      } else if (body) {
        payload = Readable.from(counted(await body.open(), (n) => (sent += n)), { objectMode: false });
        if (req.chunked) delete headers['content-length'];
        else headers['content-length'] = String(body.length);
      } else {
        delete headers['content-length'];
        delete headers['content-type'];
      }
      const res = await request(url, { method: method as Dispatcher.HttpMethod, headers, body: payload, dispatcher, signal, headersTimeout: limits.timeoutMs, bodyTimeout: limits.timeoutMs });
      const chunks: Buffer[] = [];
      let kept = 0;
      for await (const chunk of res.body) {
        const buf = chunk as Buffer;
        received += buf.length;
        if (kept < limits.maxBodyBytes) {
          chunks.push(buf.subarray(0, limits.maxBodyBytes - kept));
          kept += Math.min(buf.length, limits.maxBodyBytes - kept);
        }
      }
      const resHeaders = flatHeaders(res.headers);
      const location = resHeaders.location;
      if (REDIRECTS.has(res.statusCode) && hop < limits.maxRedirects && location) {
        const next = new URL(location, url);
        if (next.protocol === 'http:' || next.protocol === 'https:') {
          const refused = refusedRedirect(new URL(url), next);
          if (refused) return result(null, resHeaders, Buffer.concat(chunks), { kind: 'refused', reason: refused });
          if (next.origin !== origin) for (const name of [...CREDENTIAL_HEADERS, ...(req.originOnly ?? [])]) delete outgoing[name];
          url = next.href;
          if (res.statusCode === 303) {
            method = 'GET';
            body = undefined;
          }
          continue;
        }
      }
      return result(res.statusCode, resHeaders, Buffer.concat(chunks));
    }
  } catch (err) {
    // The body could not be read from the blob store: no network failure of the target, and the step says so.
    if (isBlobOutage(err)) throw err;
    return result(null, {}, Buffer.alloc(0), classify(err, signal.aborted));
  }
}
