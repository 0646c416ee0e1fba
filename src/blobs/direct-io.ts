import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { ByteRange } from './blob-store.js';

// The file store's small reads and writes, made directly on the calling thread instead of
// through libuv's thread pool.

/**
 * Files up to this size are read with direct calls: a promise-based read is several round
 * trips through the thread pool, which on two cores busy with renders each wait for a core.
 */
export const DIRECT_READ_MAX_BYTES = 1024 * 1024;

/**
 * A blob nothing names yet up to this size (a ticket's input, most often) is written with
 * direct calls too: open, write and close through the thread pool are three hand-offs, each
 * waking a pool thread and then the event loop, and they cost more than the file system's own
 * work for a small file (intake alone, the third burst of 2000 ZIPs of 52 KB from 16 clients
 * on one server: 0.43–0.57 against 0.61–0.69 ms of CPU a submission; during renders, the
 * benchmark's burst: 1.32–1.41 against 1.70–1.83 ms). Larger writes stay off the thread that answers
 * requests, which a write holds while the kernel makes room for its pages. (An earlier version
 * wrote every small blob this way, each into a folder made for its ticket on the spot, through
 * a temp file and a rename; making the folder made that slower than the pool. Inputs now go
 * into their project's folder, in place.)
 */
export const DIRECT_WRITE_MAX_BYTES = 256 * 1024;

export const missing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** Writes `data` as `file` in place; `folder` (the file's) is made only when found missing. A failed write leaves nothing. */
export function writeInPlace(file: string, folder: string, data: Buffer): void {
  let fd: number;
  try {
    fd = openSync(file, 'w');
  } catch (err) {
    if (!missing(err)) throw err;
    mkdirSync(folder, { recursive: true });
    fd = openSync(file, 'w');
  }
  try {
    writeFileSync(fd, data);
  } catch (err) {
    closeSync(fd);
    rmSync(file, { force: true });
    throw err;
  }
  closeSync(fd);
}

/** The whole file when it is small enough to read directly; null when it is larger. Throws ENOENT when missing. */
export function readSmall(file: string): Buffer | null {
  return statSync(file).size <= DIRECT_READ_MAX_BYTES ? readFileSync(file) : null;
}

/** Size of the open file `fd`; closes it when that cannot be read. */
export function sizeOf(fd: number): number {
  try {
    return fstatSync(fd).size;
  } catch (err) {
    closeSync(fd);
    throw err;
  }
}

/** The bytes of `range` (or all) of the open file `fd` of `size` bytes, read at once; closes `fd`. */
export function readRangeAndClose(fd: number, size: number, range?: ByteRange): Buffer {
  try {
    const start = range ? Math.min(range.start, size) : 0;
    const end = range ? Math.min(range.end + 1, size) : size;
    const bytes = Buffer.allocUnsafe(Math.max(0, end - start));
    let done = 0;
    while (done < bytes.length) {
      const n = readSync(fd, bytes, done, bytes.length - done, start + done);
      if (n === 0) break;
      done += n;
    }
    return bytes.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}
