// Masters are few and rendered from again and again: their checked ZIP entries are kept,
// keyed by content hash, so a render skips unzipping and the DTD scan. Entry buffers are
// never changed by a package (it replaces parts, it does not write into them).
import { createHash } from 'node:crypto';

export interface MasterEntry {
  name: string;
  data: Buffer;
}

const MAX_MASTERS = 16;
const MAX_BYTES = 64 * 1024 * 1024;
const cache = new Map<string, { entries: MasterEntry[]; bytes: number }>();

/** The cache key of a master's bytes. */
export const masterKey = (master: Buffer): string => createHash('sha256').update(master).digest('hex');

/** Checked entries of a master seen before (most recently used last). */
export function cachedEntries(key: string): MasterEntry[] | undefined {
  const hit = cache.get(key);
  if (!hit) return undefined;
  cache.delete(key);
  cache.set(key, hit);
  return hit.entries;
}

/** Remembers a master's checked entries, evicting the least recently used beyond the limits. */
export function rememberEntries(key: string, entries: MasterEntry[]): void {
  const bytes = entries.reduce((sum, e) => sum + e.data.length, 0);
  if (bytes > MAX_BYTES / 4) return; // a huge master would push out all others
  cache.set(key, { entries, bytes });
  let total = [...cache.values()].reduce((sum, e) => sum + e.bytes, 0);
  for (const [k, v] of cache) {
    if (cache.size <= MAX_MASTERS && total <= MAX_BYTES) break;
    cache.delete(k);
    total -= v.bytes;
  }
}
