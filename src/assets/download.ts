import { request, type Dispatcher } from 'undici';
import type { Headers } from './cache-policy.js';
import { sniffImageType, typeOfContentType, type ImageType } from './image-type.js';

/** Limits of one asset download. */
export interface DownloadLimits {
  /** Largest body, enforced while streaming. */
  maxBytes: number;
  /** Most redirects followed. */
  maxRedirects: number;
}

/** A finished download: the body, or "not modified" for a conditional request. */
export type DownloadResult =
  | { kind: 'ok'; data: Buffer; type: ImageType; headers: Headers }
  | { kind: 'not-modified'; headers: Headers };

/** Why an asset could not be downloaded; the message is for the render log and the ticket. */
export class AssetError extends Error {}

const accept = 'image/png,image/jpeg,image/gif,image/webp,image/svg+xml;q=0.9';

/**
 * Fetches one asset through `dispatcher` (a guarded agent: every hop's address is checked
 * there). Redirects are followed here, one request per hop, so a refused hop is named in the
 * message. Type and size are checked on the headers before the body is read, the size again
 * while streaming, the bytes' signature at the end. `signal` carries the time limits.
 */
export async function download(
  dispatcher: Dispatcher,
  url: string,
  validators: { etag: string | null; lastModified: string | null } | null,
  limits: DownloadLimits,
  signal: AbortSignal,
): Promise<DownloadResult> {
  const headers: Record<string, string> = { accept, 'user-agent': 'pressroom (media assets)' };
  if (validators?.etag) headers['if-none-match'] = validators.etag;
  if (validators?.lastModified) headers['if-modified-since'] = validators.lastModified;
  let current = url;
  for (let hop = 0; ; hop++) {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(current, { dispatcher, method: 'GET', headers, signal });
    } catch (err) {
      throw new AssetError(hop === 0 ? reason(err, signal) : `redirect to ${current}: ${reason(err, signal)}`);
    }
    const { statusCode, body } = res;
    const location = res.headers.location;
    if (statusCode >= 300 && statusCode < 400 && statusCode !== 304 && typeof location === 'string') {
      await body.dump().catch(() => {});
      if (hop >= limits.maxRedirects) throw new AssetError(`more than ${limits.maxRedirects} redirects`);
      const next = new URL(location, current);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') throw new AssetError(`redirect to ${next.protocol} URL refused`);
      next.hash = '';
      current = next.href;
      continue;
    }
    if (statusCode === 304 && validators) {
      await body.dump().catch(() => {});
      return { kind: 'not-modified', headers: res.headers };
    }
    if (statusCode !== 200) {
      discard(body);
      throw new AssetError(`HTTP ${statusCode}`);
    }
    const contentType = typeof res.headers['content-type'] === 'string' ? res.headers['content-type'] : undefined;
    if (!typeOfContentType(contentType)) {
      discard(body);
      throw new AssetError(`served as ${contentType ?? 'no Content-Type'}, not as PNG, JPEG, GIF, WebP or SVG image`);
    }
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > limits.maxBytes) {
      discard(body);
      throw new AssetError(`larger than the limit of ${limits.maxBytes} bytes (Content-Length ${declared})`);
    }
    const data = await readLimited(body, limits.maxBytes, signal);
    const type = sniffImageType(data);
    // Content-Type and bytes may disagree (a JPEG served as image/png); the bytes decide.
    if (!type) throw new AssetError(`served as ${contentType} but the content is no PNG, JPEG, GIF, WebP or SVG image`);
    return { kind: 'ok', data, type, headers: res.headers };
  }
}

/** Drops a body without reading it; undici reports that as an error, which nobody needs to hear. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => {});
  body.destroy();
}

async function readLimited(body: Dispatcher.ResponseData['body'], maxBytes: number, signal: AbortSignal): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      size += (chunk as Buffer).length;
      if (size > maxBytes) {
        discard(body);
        throw new AssetError(`larger than the limit of ${maxBytes} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof AssetError) throw err;
    throw new AssetError(reason(err, signal));
  }
  return Buffer.concat(chunks);
}

/** A readable reason for a failed request: the refused address, the time limit, or the network error. */
function reason(err: unknown, signal: AbortSignal): string {
  if (signal.aborted) return signal.reason instanceof AssetError ? signal.reason.message : 'aborted';
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: string }).code;
    if (code === 'EADDRNOTALLOWED') return `refused: ${e.message}`;
    if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'timed out connecting';
    if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') return 'timed out';
    if (code === 'ECONNREFUSED') return 'connection refused';
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return 'host not found';
  }
  return err instanceof Error ? err.message : String(err);
}
