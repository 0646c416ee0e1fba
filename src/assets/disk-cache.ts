import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImageType } from './image-type.js';

/** What the cache keeps about a response besides its body. */
export interface CachedMeta {
  /** The normalised URL it was fetched from. */
  url: string;
  /** The tenant of a `Cache-Control: private` response; null for shared entries. */
  tenant: string | null;
  /** When it was first stored (epoch ms); the entry is dropped `ttl` after that. */
  storedAt: number;
  freshUntil: number;
  type: ImageType;
  /** The caching headers of the response (cache-control, expires, etag, last-modified, vary), merged with later 304s. */
  headers: Record<string, string>;
}

/** A cached asset. */
export interface CachedAsset {
  meta: CachedMeta;
  data: Buffer;
}

const MAGIC = Buffer.from('PRAC1\n');
const HOUR = 3600_000;

/**
 * The media asset cache: one file per entry under `<data>/asset-cache/`, named by the
 * SHA-256 of the URL (and, for private responses, the tenant). Each file is the metadata
 * and the body together, written to a temporary name and renamed, so a reader (in this or
 * another process sharing the folder) sees a whole entry or none. The file's mtime is the
 * entry's last use (set from the service clock), which drives least-recently-used eviction
 * once the folder grows past `maxBytes`, and the removal of entries unused for `ttlMs`.
 */
export class AssetCache {
  private approxBytes: number | null = null;
  private lastSweep = 0;
  private sweeping: Promise<void> | null = null;

  constructor(
    private readonly dir: string,
    private readonly maxBytes: number,
    private readonly ttlMs: number,
    /** Told about write failures (a full disk, a read-only folder), which otherwise pass silently. */
    private readonly onError: (err: unknown) => void = () => {},
  ) {}

  /** Whether entries are kept at all (PRESSROOM_ASSET_CACHE_BYTES > 0). */
  get enabled(): boolean {
    return this.maxBytes > 0;
  }

  private file(url: string, tenant: string | null): string {
    const key = createHash('sha256').update(tenant === null ? `shared\n${url}` : `private\n${tenant}\n${url}`).digest('hex');
    return join(this.dir, key);
  }

  /** The tenant's private entry for `url`, else the shared one, else null; entries past the TTL are removed. */
  async get(url: string, tenant: string, now: number): Promise<CachedAsset | null> {
    if (!this.enabled) return null;
    this.maybeSweep(now);
    for (const owner of [tenant, null]) {
      const path = this.file(url, owner);
      const entry = await readEntry(path);
      if (!entry || entry.meta.url !== url || entry.meta.tenant !== owner) continue;
      if (entry.meta.storedAt + this.ttlMs <= now) {
        await rm(path, { force: true }).catch(this.onError);
        continue;
      }
      await touch(path, now);
      return entry;
    }
    return null;
  }

  /**
   * Stores (or replaces) an entry; bodies larger than the whole cache are not kept. Never
   * throws: the asset is in hand, and a cache that cannot write must not cost it.
   */
  async put(entry: CachedAsset, now: number): Promise<void> {
    if (!this.enabled || entry.data.length > this.maxBytes) return;
    const path = this.file(entry.meta.url, entry.meta.tenant);
    const head = Buffer.from(JSON.stringify(entry.meta), 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32BE(head.length);
    const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      await mkdir(this.dir, { recursive: true });
      await writeFile(tmp, Buffer.concat([MAGIC, len, head, entry.data]));
      await touch(tmp, now);
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true }).catch(() => {});
      this.onError(err);
      return;
    }
    if (this.approxBytes !== null) this.approxBytes += entry.data.length + head.length;
    this.maybeSweep(now);
  }

  /** Removes the shared entry and the tenant's private entry for `url` (a response said no-store). */
  async delete(url: string, tenant: string): Promise<void> {
    if (!this.enabled) return;
    await Promise.all([rm(this.file(url, tenant), { force: true }), rm(this.file(url, null), { force: true })]).catch(this.onError);
  }

  /** Waits for a running sweep (tests, shutdown). */
  async idle(): Promise<void> {
    await this.sweeping;
  }

  private maybeSweep(now: number): void {
    if (this.sweeping) return;
    const over = this.approxBytes === null || this.approxBytes > this.maxBytes;
    if (!over && now - this.lastSweep < HOUR) return;
    this.lastSweep = now;
    // A cache problem must never fail a render: a failed sweep is retried on a later use.
    this.sweeping = this.sweep(now)
      .catch(() => {})
      .finally(() => {
        this.sweeping = null;
      });
  }

  /**
   * Scans the folder: drops entries unused for the TTL and temporary files older than an
   * hour (left by a crash), then the least recently used entries until the total is below
   * 90% of the budget, so the next sweep is not due at once. Other processes may write
   * meanwhile; the next sweep sees their files.
   */
  private async sweep(now: number): Promise<void> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      this.approxBytes = 0;
      return;
    }
    const entries: { path: string; size: number; used: number }[] = [];
    for (const name of names) {
      const path = join(this.dir, name);
      const s = await stat(path).catch(() => null);
      if (!s?.isFile()) continue;
      const used = s.mtimeMs;
      if (name.endsWith('.tmp') ? used < now - HOUR : used < now - this.ttlMs) await rm(path, { force: true });
      else if (!name.endsWith('.tmp')) entries.push({ path, size: s.size, used });
    }
    let total = entries.reduce((sum, e) => sum + e.size, 0);
    if (total > this.maxBytes) {
      entries.sort((a, b) => a.used - b.used);
      for (const e of entries) {
        if (total <= this.maxBytes * 0.9) break;
        await rm(e.path, { force: true });
        total -= e.size;
      }
    }
    this.approxBytes = total;
  }
}

async function touch(path: string, now: number): Promise<void> {
  await utimes(path, now / 1000, now / 1000).catch(() => {});
}

/** Reads and checks one entry file; null when missing or damaged. */
async function readEntry(path: string): Promise<CachedAsset | null> {
  let raw: Buffer;
  try {
    raw = await readFile(path);
  } catch {
    return null;
  }
  if (raw.length < MAGIC.length + 4 || !raw.subarray(0, MAGIC.length).equals(MAGIC)) return null;
  const len = raw.readUInt32BE(MAGIC.length);
  const start = MAGIC.length + 4;
  if (start + len > raw.length) return null;
  try {
    const meta = JSON.parse(raw.subarray(start, start + len).toString('utf8')) as CachedMeta;
    return { meta, data: raw.subarray(start + len) };
  } catch {
    return null;
  }
}
