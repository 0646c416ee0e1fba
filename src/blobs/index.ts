import { join } from 'node:path';
import type { Settings } from '../config/settings.js';
import type { BlobStore } from './blob-store.js';
import { parseBlobUrl } from './blob-url.js';
import { FileBlobStore } from './file-blob-store.js';

export { BLOB_OUTAGE_ERROR_CODE, isBlobOutage, type BlobInfo, type BlobPage, type BlobStore, type ByteRange } from './blob-store.js';
export { BlobProbe } from './blob-probe.js';
export { parseBlobUrl, type BlobLocation } from './blob-url.js';
export { FileBlobStore } from './file-blob-store.js';
export type { S3StoreOptions } from './s3-blob-store.js';

/** Opens the blob store named by the settings (files under the data folder when none is named). */
export async function openBlobStore(settings: Settings): Promise<BlobStore> {
  if (!settings.blobUrl) return new FileBlobStore(join(settings.dataDir, 'blobs'));
  const where = parseBlobUrl(settings.blobUrl);
  if (where.kind === 'file') return new FileBlobStore(where.path);
  // Loaded only when used: the AWS SDK takes a noticeable part of a second to import.
  const { S3BlobStore } = await import('./s3-blob-store.js');
  return new S3BlobStore({ bucket: where.bucket, prefix: where.prefix, endpoint: settings.s3Endpoint, region: settings.s3Region, forcePathStyle: settings.s3ForcePathStyle });
}
