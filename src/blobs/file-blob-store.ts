import { randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertKey, type BlobStore } from './blob-store.js';

/** Blobs as files under one folder: written to a temp name, then renamed into place. */
export class FileBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private file(key: string): string {
    assertKey(key);
    return join(this.root, key);
  }

  async put(key: string, data: Buffer | Readable): Promise<number> {
    const target = this.file(key);
    await mkdir(dirname(target), { recursive: true });
    const tmp = `${target}.${randomBytes(6).toString('hex')}.tmp`;
    try {
      // A buffer is written in one call; only streams need a pipeline.
      if (Buffer.isBuffer(data)) await writeFile(tmp, data);
      else await pipeline(data, createWriteStream(tmp));
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return Buffer.isBuffer(data) ? data.length : (await stat(target)).size;
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.file(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async stream(key: string): Promise<Readable | undefined> {
    const path = this.file(key);
    try {
      await stat(path);
    } catch {
      return undefined;
    }
    return createReadStream(path);
  }

  async delete(key: string, opts: { pruneFolder?: boolean } = {}): Promise<void> {
    const path = this.file(key);
    try {
      await unlink(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    // rmdir refuses a folder that is not empty, which is exactly the condition wanted.
    if (opts.pruneFolder && key.includes('/')) await rmdir(dirname(path)).catch(() => {});
  }

  async size(key: string): Promise<number | undefined> {
    try {
      return (await stat(this.file(key))).size;
    } catch {
      return undefined;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    await this.walk(this.folderOf(prefix), async (full, name) => {
      if (!name.endsWith('.tmp')) out.push(relative(this.root, full).split(sep).join('/'));
    });
    return out.filter((k) => k.startsWith(prefix)).sort();
  }

  async deletePrefix(prefix: string): Promise<void> {
    if (!prefix.endsWith('/')) throw new Error(`blob prefix must end in /: ${prefix}`);
    // The folder goes too, so no empty directories pile up.
    await rm(this.file(prefix.slice(0, -1)), { recursive: true, force: true });
  }

  async removeStaleTemp(before: number): Promise<number> {
    let removed = 0;
    await this.walk(this.root, async (full, name) => {
      if (!name.endsWith('.tmp')) return;
      const info = await stat(full).catch(() => null);
      if (info && info.mtimeMs < before) {
        await rm(full, { force: true });
        removed++;
      }
    });
    return removed;
  }

  /** The deepest folder that holds every key starting with `prefix` (so listing a ticket is not a walk of everything). */
  private folderOf(prefix: string): string {
    const folder = prefix.slice(0, Math.max(0, prefix.lastIndexOf('/')));
    try {
      return folder ? this.file(folder) : this.root;
    } catch {
      return this.root; // not a valid folder: the walk finds nothing under it anyway
    }
  }

  private async walk(dir: string, visit: (full: string, name: string) => Promise<void>): Promise<void> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const full = join(dir, e.name);
      if (e.isDirectory()) await this.walk(full, visit);
      else await visit(full, e.name);
    }
  }
}
