import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Agent } from 'undici';
import { AddressPolicy, guardedAgent } from '../net/index.js';
import { AssetCache } from './disk-cache.js';
import { AssetError } from './download.js';
import { fetchAsset, type FetchContext, type FetchedAsset } from './fetch-asset.js';
import { findAssetUrls } from './find-urls.js';

/** Limits and cache of media asset downloads (from the PRESSROOM_ASSET_* settings). */
export interface MediaAssetsOptions {
  /** Folder of the cache, `<data>/asset-cache`. */
  cacheDir: string;
  /** Largest total size of the cache in bytes; 0 turns caching off. */
  cacheBytes: number;
  /** Longest an entry is kept, and an upper bound of any freshness, in seconds. */
  cacheTtlSeconds: number;
  /** Largest asset in bytes. */
  maxBytes: number;
  /** Longest one asset may take, connecting included, in ms. */
  timeoutMs: number;
  /** Most asset URLs taken from one job's data; 0 turns downloads off. */
  maxCount: number;
  /** Non-public addresses downloads may reach (PRESSROOM_ALLOW_PRIVATE_ADDRESSES). */
  allowPrivateAddresses: readonly string[];
  /** Downloads of one job at once. @defaultValue 6 (what browsers open per host) */
  concurrency?: number;
  /** Most asset bytes one job may hold in total. @defaultValue 104857600 (100 MiB) */
  maxJobBytes?: number;
  /** Longest all downloads of one job may take together. @defaultValue 4 × timeoutMs */
  jobTimeoutMs?: number;
  /** Most redirects followed per asset. @defaultValue 5 */
  maxRedirects?: number;
  /** Where unexpected errors (not the asset's fault) are logged. */
  logger?: Logger;
}

/** What a job's downloads cost, for the statistics (downloadRequests, downloadBytes, downloadMsec, cacheHits). */
export interface DownloadReport {
  /** Assets downloaded (HTTP 200 with an accepted image). */
  requests: number;
  /** Their bytes. */
  bytes: number;
  /** Their request times summed (downloads run in parallel, so this can exceed the wall time). */
  msec: number;
  /** Assets served from the cache: fresh entries, 304 revalidations, downloads shared with a concurrent job. */
  cacheHits: number;
  /** Assets left out (failed, over a limit). */
  failed: number;
}

/** The assets of one job, ready to add to its render. */
export interface PreparedAssets {
  /** Files for the job view: `/assets/<sha256 of the URL>.<png|jpg|gif|webp|svg>`. */
  files: [string, Buffer][];
  /** Their paths without the leading slash, for sys.inputs `resources`. */
  resources: string[];
  /** sys.inputs `assets`: one `URL<TAB>/assets/…` line per available asset, the URL as the data wrote it. */
  assetsInput: string;
  /** Render log lines in order. */
  log: { level: 'info' | 'warn'; message: string }[];
  /** The warnings alone, for the ticket's messages. */
  warnings: string[];
  report: DownloadReport;
}

type Outcome = { ok: true; asset: FetchedAsset } | { ok: false; reason: string };

/**
 * Downloads the image URLs of a job's data before rendering: in parallel, through the shared
 * cache, within the address policy and the per-asset and per-job limits. A failed asset never
 * fails the job: it is left out, the template gets `none` for it, and a warning names it.
 * One instance per worker process; it shares the connection pool and the cache.
 */
export class MediaAssets {
  private readonly agent: Agent;
  private readonly cache: AssetCache;
  private readonly fc: Omit<FetchContext, 'now'>;
  private readonly inflight = new Map<string, Promise<FetchedAsset>>();

  constructor(private readonly opts: MediaAssetsOptions) {
    const connectTimeoutMs = Math.min(opts.timeoutMs, 10_000);
    this.agent = guardedAgent(new AddressPolicy(opts.allowPrivateAddresses), { connectTimeoutMs, headersTimeoutMs: opts.timeoutMs, bodyTimeoutMs: opts.timeoutMs });
    this.cache = new AssetCache(opts.cacheDir, opts.cacheBytes, opts.cacheTtlSeconds * 1000, (err) => opts.logger?.warn({ err }, 'media asset cache: write failed'));
    this.fc = { dispatcher: this.agent, cache: this.cache, limits: { maxBytes: opts.maxBytes, maxRedirects: opts.maxRedirects ?? 5 }, ttlMs: opts.cacheTtlSeconds * 1000 };
  }

  /** Finds and fetches the assets of `data` for a render of `tenant`. */
  async prepare(job: { tenant: string; data: Buffer; dataType: 'xml' | 'json'; now: () => number }): Promise<PreparedAssets> {
    const out: PreparedAssets = { files: [], resources: [], assetsInput: '', log: [], warnings: [], report: { requests: 0, bytes: 0, msec: 0, cacheHits: 0, failed: 0 } };
    const warn = (message: string) => {
      out.log.push({ level: 'warn', message });
      out.warnings.push(message);
    };
    if (this.opts.maxCount === 0) return out;
    const found = findAssetUrls(job.data, job.dataType, this.opts.maxCount);
    for (const r of found.refused) warn(`asset ${r.url} not downloaded: ${r.reason}`);
    if (found.dropped > 0) warn(`${found.dropped} more asset URL(s) not downloaded: at most ${this.opts.maxCount} per job (PRESSROOM_ASSET_MAX_COUNT)`);
    if (found.urls.length === 0) return out;

    // Two spellings of one URL (`HTTP://Host/a.png`, `http://host/a.png#x`) are one download.
    const hrefOf = new Map(found.urls.map((u) => [u, normalise(u)]));
    const outcomes = await this.fetchAll([...new Set(hrefOf.values())], job);
    const lines: string[] = [];
    let jobBytes = 0;
    const maxJobBytes = this.opts.maxJobBytes ?? 100 * 1024 * 1024;
    for (const [href, outcome] of outcomes) {
      if (outcome.ok && jobBytes + outcome.asset.data.length > maxJobBytes) {
        outcomes.set(href, { ok: false, reason: `the job's assets would exceed ${maxJobBytes} bytes` });
      } else if (outcome.ok) jobBytes += outcome.asset.data.length;
    }
    for (const [href, outcome] of outcomes) {
      const r = out.report;
      if (!outcome.ok) {
        r.failed++;
        warn(`asset ${href} not available: ${outcome.reason}`);
        continue;
      }
      const { asset } = outcome;
      const path = `assets/${createHash('sha256').update(href).digest('hex')}.${asset.type}`;
      out.files.push([`/${path}`, asset.data]);
      out.resources.push(path);
      if (asset.source === 'download') {
        r.requests++;
        r.bytes += asset.data.length;
        r.msec += asset.msec;
        out.log.push({ level: 'info', message: `asset ${href}: downloaded ${asset.data.length} bytes (${asset.type}) in ${Math.round(asset.msec)} ms` });
      } else {
        r.cacheHits++;
        out.log.push({ level: 'info', message: `asset ${href}: ${asset.source === 'revalidated' ? 'not modified (304), from the cache' : 'from the cache'}` });
      }
      for (const [u, h] of hrefOf) if (h === href) lines.push(`${u}\t/${path}`);
    }
    out.report.msec = Math.round(out.report.msec);
    out.assetsInput = lines.join('\n');
    const r = out.report;
    out.log.push({ level: 'info', message: `assets: ${r.requests} downloaded (${r.bytes} bytes, ${r.msec} ms), ${r.cacheHits} from the cache, ${r.failed} not available` });
    return out;
  }

  /** Fetches each URL with bounded concurrency within the job's deadline; never throws. */
  private async fetchAll(hrefs: string[], job: { tenant: string; now: () => number }): Promise<Map<string, Outcome>> {
    const results = new Map<string, Outcome>(hrefs.map((h) => [h, { ok: false, reason: 'not fetched' }]));
    const jobTimeoutMs = this.opts.jobTimeoutMs ?? 4 * this.opts.timeoutMs;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new AssetError(`the job's downloads ran past ${jobTimeoutMs} ms`)), jobTimeoutMs);
    const queue = [...hrefs];
    const worker = async () => {
      for (let href = queue.shift(); href !== undefined; href = queue.shift()) {
        results.set(href, await this.fetchOne(href, job, deadline.signal));
      }
    };
    try {
      await Promise.all(Array.from({ length: Math.min(this.opts.concurrency ?? 6, hrefs.length) }, worker));
    } finally {
      clearTimeout(timer);
    }
    return results;
  }

  private async fetchOne(href: string, job: { tenant: string; now: () => number }, jobSignal: AbortSignal): Promise<Outcome> {
    if (jobSignal.aborted) return { ok: false, reason: (jobSignal.reason as Error).message };
    // A concurrent render of the same tenant fetching the same URL: share its result.
    const key = `${job.tenant}\n${href}`;
    const running = this.inflight.get(key);
    if (running) {
      return running.then(
        (asset) => ({ ok: true as const, asset: { ...asset, source: 'cache' as const, msec: 0 } }),
        (err: unknown) => ({ ok: false as const, reason: err instanceof AssetError ? err.message : 'failed' }),
      );
    }
    const own = new AbortController();
    const timer = setTimeout(() => own.abort(new AssetError(`timed out after ${this.opts.timeoutMs} ms`)), this.opts.timeoutMs);
    const promise = fetchAsset({ ...this.fc, now: job.now }, href, job.tenant, AbortSignal.any([own.signal, jobSignal]));
    this.inflight.set(key, promise);
    try {
      return { ok: true, asset: await promise };
    } catch (err) {
      if (err instanceof AssetError) return { ok: false, reason: err.message };
      // A cache or programming error: the asset is left out like any other failure; the
      // cause goes to the service log only, as it may name server paths.
      this.opts.logger?.error({ err, url: href }, 'media asset fetch failed unexpectedly');
      return { ok: false, reason: 'internal error' };
    } finally {
      clearTimeout(timer);
      this.inflight.delete(key);
    }
  }

  /** Closes idle connections and waits for a running cache sweep. */
  async close(): Promise<void> {
    await this.agent.close();
    await this.cache.idle();
  }
}

/** The URL as fetched and cached: parsed, fragment dropped. */
function normalise(url: string): string {
  const u = new URL(url);
  u.hash = '';
  return u.href;
}

/** The cache folder under a data folder. */
export function assetCacheDir(dataDir: string): string {
  return join(dataDir, 'asset-cache');
}
