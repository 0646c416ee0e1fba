import type { Dispatcher } from 'undici';
import { cachePolicy, header, type Headers } from './cache-policy.js';
import type { AssetCache, CachedAsset } from './disk-cache.js';
import { download, type DownloadLimits } from './download.js';
import type { ImageType } from './image-type.js';

/** An asset ready for the job, and how it was obtained (which decides what is counted). */
export interface FetchedAsset {
  data: Buffer;
  type: ImageType;
  /** `download`: a 200 over the network; `cache`: fresh in the cache; `revalidated`: the server said 304. */
  source: 'download' | 'cache' | 'revalidated';
  /** Wall time of the request(s), for downloads. */
  msec: number;
}

/** The caching headers kept with an entry; a 304 may update each of them. */
const kept = ['cache-control', 'expires', 'etag', 'last-modified', 'vary'];

function pick(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of kept) {
    const v = header(headers, name);
    if (v !== null) out[name] = v;
  }
  return out;
}

/** What one asset fetch needs from its owner. */
export interface FetchContext {
  dispatcher: Dispatcher;
  cache: AssetCache;
  limits: DownloadLimits;
  ttlMs: number;
  now: () => number;
}

/**
 * One asset through the cache: a fresh entry is used as it is; a stale one with validators
 * is revalidated with a conditional GET (304: reused, with the freshness the 304 grants);
 * otherwise it is downloaded and kept as its Cache-Control allows (`private` only for the
 * tenant, `no-store` not at all and any older copy removed). Throws AssetError.
 */
export async function fetchAsset(fc: FetchContext, url: string, tenant: string, signal: AbortSignal): Promise<FetchedAsset> {
  const { cache } = fc;
  const cached = await cache.get(url, tenant, fc.now());
  if (cached && cached.meta.freshUntil > fc.now()) return { data: cached.data, type: cached.meta.type, source: 'cache', msec: 0 };
  const validators = cached ? { etag: cached.meta.headers.etag ?? null, lastModified: cached.meta.headers['last-modified'] ?? null } : null;
  const started = performance.now();
  const result = await download(fc.dispatcher, url, validators?.etag || validators?.lastModified ? validators : null, fc.limits, signal);
  const msec = performance.now() - started;
  const now = fc.now();
  if (result.kind === 'not-modified' && cached) {
    await refresh(fc, cached, result.headers, now);
    return { data: cached.data, type: cached.meta.type, source: 'revalidated', msec };
  }
  if (result.kind !== 'ok') throw new Error('unexpected 304 without a cached entry');
  const policy = cachePolicy(result.headers, now, fc.ttlMs);
  if (policy.store) {
    // Public now and private before (or the reverse): the older copy would be found first.
    if (cached && (cached.meta.tenant === null) === policy.private) await cache.delete(url, tenant);
    await cache.put({ meta: { url, tenant: policy.private ? tenant : null, storedAt: now, freshUntil: policy.freshUntil, type: result.type, headers: pick(result.headers) }, data: result.data }, now);
  } else if (cached) {
    await cache.delete(url, tenant);
  }
  return { data: result.data, type: result.type, source: 'download', msec };
}

/**
 * After a 304: the stored caching headers updated by those of the 304 (RFC 9111 §4.3.4),
 * freshness computed again. The entry is rewritten only when that makes it fresh for a
 * while, so `no-cache` entries revalidated on every use are not rewritten each time.
 */
async function refresh(fc: FetchContext, cached: CachedAsset, headers: Headers, now: number): Promise<void> {
  const merged = { ...cached.meta.headers, ...pick(headers) };
  const date = header(headers, 'date');
  const age = header(headers, 'age');
  const policy = cachePolicy({ ...merged, ...(date ? { date } : {}), ...(age ? { age } : {}) }, now, fc.ttlMs);
  if (!policy.store) {
    await fc.cache.delete(cached.meta.url, cached.meta.tenant ?? '');
    return;
  }
  if (policy.freshUntil <= now && merged.etag === cached.meta.headers.etag) return;
  await fc.cache.put({ meta: { ...cached.meta, freshUntil: policy.freshUntil, headers: merged }, data: cached.data }, now);
}
