import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Settings } from '../config/settings.js';
import type { BlobStore } from './blob-store.js';
import { FileBlobStore } from './file-blob-store.js';

export type { BlobStore } from './blob-store.js';
export { FileBlobStore } from './file-blob-store.js';

/** Opens the blob store named by the settings. */
export function openBlobStore(settings: Settings): BlobStore {
  if (settings.blobUrl) return new FileBlobStore(fileURLToPath(settings.blobUrl));
  return new FileBlobStore(join(settings.dataDir, 'blobs'));
}
