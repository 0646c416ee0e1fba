// Media assets: image URLs in a job's data, downloaded before rendering through a shared
// cache, and offered to templates as job files. See docs/assets.md.
import type { Settings } from '../config/settings.js';
import { assetCacheDir, type DownloadReport, type MediaAssetsOptions } from './media-assets.js';

export { MediaAssets, type DownloadReport, type MediaAssetsOptions, type PreparedAssets } from './media-assets.js';
export { findAssetUrls, assetUrlCheck, type FoundUrls } from './find-urls.js';
export { cachePolicy, type CachePolicy } from './cache-policy.js';
export { sniffImageType, type ImageType } from './image-type.js';

/** The options of MediaAssets from the service settings. */
export function mediaAssetsOptions(settings: Settings): MediaAssetsOptions {
  return {
    cacheDir: assetCacheDir(settings.dataDir),
    cacheBytes: settings.assetCacheBytes,
    cacheTtlSeconds: settings.assetCacheTtlSeconds,
    maxBytes: settings.assetMaxBytes,
    timeoutMs: settings.assetTimeoutMs,
    maxCount: settings.assetMaxCount,
    allowPrivateAddresses: settings.allowPrivateAddresses,
  };
}

/** A report as the usage counters of the statistics (SummaryStatus field names). */
export function downloadCounters(r: DownloadReport): { downloadRequests: number; downloadBytes: number; downloadMsec: number; cacheHits: number } {
  return { downloadRequests: r.requests, downloadBytes: r.bytes, downloadMsec: r.msec, cacheHits: r.cacheHits };
}
