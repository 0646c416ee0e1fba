import type { Readable } from 'node:stream';

/** Where inputs, outputs and repository files live. Keys are `/`-separated, `[A-Za-z0-9._-]` segments. */
export interface BlobStore {
  /** Writes a blob atomically (readers see the old or the new content, never a part). */
  put(key: string, data: Buffer | Readable): Promise<number>;
  /** Reads a whole blob; undefined when it does not exist. */
  get(key: string): Promise<Buffer | undefined>;
  /** Streams a blob; undefined when it does not exist. */
  stream(key: string): Promise<Readable | undefined>;
  /** Deletes a blob; missing blobs are fine. */
  delete(key: string): Promise<void>;
  /** Size in bytes, or undefined. */
  size(key: string): Promise<number | undefined>;
  /** Every key under a prefix (for housekeeping and tests). */
  list(prefix: string): Promise<string[]>;
}

const keyPattern = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** Throws unless `key` is a safe blob key. */
export function assertKey(key: string): void {
  if (!keyPattern.test(key) || key.split('/').some((s) => s === '.' || s === '..')) {
    throw new Error(`invalid blob key: ${key}`);
  }
}
