import type { Readable } from 'node:stream';
import { AppError } from '../errors.js';

/** An inclusive byte range within a blob (`start` ≤ `end` < size). */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

/** What a store knows about one blob. */
export interface BlobInfo {
  readonly size: number;
  /** Last write, epoch ms. */
  readonly modified: number;
}

/** One page of a listing: keys in UTF-8 byte order, and where the next page starts (null: done). */
export interface BlobPage {
  readonly keys: string[];
  readonly next: string | null;
}

/**
 * Where inputs, outputs, logs and repository files live (files under a folder, or an S3 bucket).
 * Keys are `/`-separated segments of the characters a repository path allows (see `assertKey`).
 * Both stores pass one contract suite (test/blob-store-contract.test.ts).
 */
export interface BlobStore {
  /** Describes the store for logs and probes (never a credential). */
  readonly description: string;
  /**
   * Writes a blob so that it appears under its key only when complete (readers see the old or the
   * new content, never a part); writing the same key again replaces it. Returns the byte count.
   */
  put(key: string, data: Buffer | Readable): Promise<number>;
  /**
   * Writes a blob nothing names yet: a new ticket's input, a step attempt's file, which readers
   * find only through a row committed after this returns. So the blob need not appear whole at
   * once and is written in place (a file store saves the temp file and the rename); a failed
   * write leaves nothing. Writing the same key again replaces it. Returns the byte count.
   */
  putUnreferenced(key: string, data: Buffer): Promise<number>;
  /** Reads a whole blob; undefined when it does not exist. */
  get(key: string): Promise<Buffer | undefined>;
  /** Streams a blob, or the bytes of `range` only; undefined when it does not exist. */
  stream(key: string, range?: ByteRange): Promise<Readable | undefined>;
  /** Size and time of a blob, or undefined. */
  stat(key: string): Promise<BlobInfo | undefined>;
  /** Size in bytes, or undefined. */
  size(key: string): Promise<number | undefined>;
  /**
   * Deletes a blob; missing blobs are fine. With `pruneFolder`, its folder goes too when left
   * empty (only for folders nothing writes to any more, e.g. a finished ticket's).
   */
  delete(key: string, opts?: { pruneFolder?: boolean }): Promise<void>;
  /** Every key starting with `prefix`, in UTF-8 byte order (for housekeeping and tests). */
  list(prefix: string): Promise<string[]>;
  /** One page of the keys starting with `prefix`, after the key `after` (exclusive). */
  listPage(prefix: string, opts?: { after?: string | null; limit?: number }): Promise<BlobPage>;
  /** Deletes every blob under a folder prefix ending in `/` (a ticket's files), leftovers included. */
  deletePrefix(prefix: string): Promise<void>;
  /** Removes partial writes a crashed process left behind, older than `before` (epoch ms); returns how many. */
  removeStaleTemp(before: number): Promise<number>;
  /** Proves the store can be used (folder writable, bucket reachable with these credentials); throws a readable AppError. */
  check(): Promise<void>;
  /** Releases connections. */
  close(): void;
}

// The characters a repository path allows (src/repository/paths.ts), so any such path can be a key.
const segmentPattern = /^[\p{L}\p{M}\p{N} ._+@()-]+$/u;

/** Throws unless `key` is a safe blob key: no empty, `.` or `..` segment, no leading or trailing space. */
export function assertKey(key: string): void {
  const bad = key === '' || key.length > 1024 || key.split('/').some((s) => s === '.' || s === '..' || s.trim() !== s || !segmentPattern.test(s));
  if (bad) throw new Error(`invalid blob key: ${JSON.stringify(key)}`);
}

/** Orders keys as S3 lists them: by their UTF-8 bytes. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/** errorCode of a ticket step that failed because the blob store could not be used (redeliverable like any 5xx). */
export const BLOB_OUTAGE_ERROR_CODE = '503';

/** True for the error a store throws when it cannot be used (unreachable, refused, bucket gone). */
export function isBlobOutage(err: unknown): err is AppError {
  return err instanceof AppError && err.code === 'blob_unavailable';
}
