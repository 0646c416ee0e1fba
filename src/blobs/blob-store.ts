import type { Readable } from 'node:stream';

/** Where inputs, outputs and repository files live. Keys are `/`-separated, `[A-Za-z0-9._-]` segments. */
export interface BlobStore {
  /** Writes a blob atomically (readers see the old or the new content, never a part). */
  put(key: string, data: Buffer | Readable): Promise<number>;
  /** Reads a whole blob; undefined when it does not exist. */
  get(key: string): Promise<Buffer | undefined>;
  /** Streams a blob; undefined when it does not exist. */
  stream(key: string): Promise<Readable | undefined>;
  /**
   * Deletes a blob; missing blobs are fine. With `pruneFolder`, its folder goes too when left
   * empty (only for folders nothing writes to any more, e.g. a finished ticket's).
   */
  delete(key: string, opts?: { pruneFolder?: boolean }): Promise<void>;
  /** Size in bytes, or undefined. */
  size(key: string): Promise<number | undefined>;
  /** Every key under a prefix (for housekeeping and tests). */
  list(prefix: string): Promise<string[]>;
  /** Deletes every blob under a folder prefix ending in `/` (a ticket's files), leftovers included. */
  deletePrefix(prefix: string): Promise<void>;
  /** Removes partial writes a crashed process left behind, older than `before` (epoch ms); returns how many. */
  removeStaleTemp(before: number): Promise<number>;
}

const keyPattern = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;

/** Throws unless `key` is a safe blob key. */
export function assertKey(key: string): void {
  if (!keyPattern.test(key) || key.split('/').some((s) => s === '.' || s === '..')) {
    throw new Error(`invalid blob key: ${key}`);
  }
}
