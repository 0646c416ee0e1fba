import { randomBytes } from 'node:crypto';
import { constants, createReadStream, createWriteStream, openSync } from 'node:fs';
import { access, mkdir, open, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { AppError } from '../errors.js';
import { assertKey, compareKeys, type BlobInfo, type BlobPage, type BlobStore, type ByteRange } from './blob-store.js';
import { DIRECT_READ_MAX_BYTES, DIRECT_WRITE_MAX_BYTES, missing, readRangeAndClose, readSmall, sizeOf, writeInPlace } from './direct-io.js';

// A partial write: `<key>~<hex>.tmp` (`~` is no key character, so no key looks like one), or the
// `<key>.<hex>.tmp` earlier versions wrote.
const isTemp = (name: string): boolean => /[~.][0-9a-f]{12}\.tmp$/.test(name);

/** Folders remembered as existing; past this many the memory starts over (it is only a hint). */
const KNOWN_FOLDERS_MAX = 4096;

/** Blobs as files under one folder: written to a temp name, then renamed into place. */
export class FileBlobStore implements BlobStore {
  readonly description: string;
  /**
   * Folders this store created or wrote into. A write to a folder not known here creates the
   * folder first instead of finding it missing (one file system round trip less for each new
   * ticket and attempt). A hint only: a folder removed behind its back (another process's
   * housekeeping) is found missing by the write and created again.
   */
  private readonly folders = new Set<string>();
  /** Folders being created now: writes that start meanwhile (a step's files side by side) wait for the one mkdir. */
  private readonly creating = new Map<string, Promise<void>>();

  constructor(private readonly root: string) {
    this.description = `files under ${root}`;
  }

  private file(key: string): string {
    assertKey(key);
    return join(this.root, key);
  }

  async put(key: string, data: Buffer | Readable): Promise<number> {
    const target = this.file(key);
    const tmp = `${target}~${randomBytes(6).toString('hex')}.tmp`;
    try {
      // A buffer is written in one call; only streams need a pipeline. A folder not known to
      // exist is created first; one removed behind the store's back is found missing and made.
      if (Buffer.isBuffer(data)) {
        const folder = dirname(target);
        if (!this.folders.has(folder)) await this.createFolder(folder);
        await writeFile(tmp, data).catch(async (err: unknown) => {
          if (!missing(err)) throw err;
          await mkdir(folder, { recursive: true });
          await writeFile(tmp, data);
        });
        this.knowFolder(folder);
      } else {
        await mkdir(dirname(target), { recursive: true });
        await pipeline(data, createWriteStream(tmp));
      }
      await rename(tmp, target);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
    return Buffer.isBuffer(data) ? data.length : (await stat(target)).size;
  }

  async putUnreferenced(key: string, data: Buffer): Promise<number> {
    const target = this.file(key);
    const folder = dirname(target);
    if (!this.folders.has(folder)) await this.createFolder(folder);
    if (data.length <= DIRECT_WRITE_MAX_BYTES) {
      writeInPlace(target, folder, data);
      this.knowFolder(folder);
      return data.length;
    }
    // Opened here rather than by writeFile, so that a failure after the open (a full disk) is
    // known to have left a part of this write, which is removed; the open's own failure left nothing.
    const file = await open(target, 'w').catch(async (err: unknown) => {
      if (!missing(err)) throw err;
      await mkdir(folder, { recursive: true });
      return open(target, 'w');
    });
    this.knowFolder(folder);
    try {
      await file.writeFile(data);
    } catch (err) {
      await file.close().catch(() => {});
      await rm(target, { force: true });
      throw err;
    }
    await file.close();
    return data.length;
  }

  async get(key: string): Promise<Buffer | undefined> {
    const file = this.file(key);
    try {
      // A small file is read directly; a large one off the main thread.
      return readSmall(file) ?? (await readFile(file));
    } catch (err) {
      if (missing(err)) return undefined;
      throw err;
    }
  }

  async stream(key: string, range?: ByteRange): Promise<Readable | undefined> {
    // Opened first, so a missing file is known before anything is streamed (and no stat can race
    // a rename). A small file is read at once, like get(); a large one streams off the main thread.
    let fd;
    try {
      fd = openSync(this.file(key), 'r');
    } catch (err) {
      if (missing(err)) return undefined;
      throw err;
    }
    const size = sizeOf(fd);
    if (size > DIRECT_READ_MAX_BYTES) return createReadStream('', { fd, ...(range ? { start: range.start, end: range.end } : {}) });
    return Readable.from([readRangeAndClose(fd, size, range)], { objectMode: false });
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    try {
      const info = await stat(this.file(key));
      return info.isFile() ? { size: info.size, modified: info.mtimeMs } : undefined;
    } catch (err) {
      if (missing(err) || (err as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined;
      throw err;
    }
  }

  async size(key: string): Promise<number | undefined> {
    return (await this.stat(key))?.size;
  }

  async delete(key: string, opts: { pruneFolder?: boolean } = {}): Promise<void> {
    const path = this.file(key);
    try {
      await unlink(path);
    } catch (err) {
      if (!missing(err)) throw err;
    }
    // rmdir refuses a folder that is not empty, which is exactly the condition wanted.
    if (opts.pruneFolder && key.includes('/')) {
      this.folders.delete(dirname(path));
      await rmdir(dirname(path)).catch(() => {});
    }
  }

  async list(prefix: string): Promise<string[]> {
    return this.keysUnder(prefix);
  }

  async listPage(prefix: string, opts: { after?: string | null; limit?: number } = {}): Promise<BlobPage> {
    const limit = opts.limit ?? 1000;
    const after = opts.after ?? null;
    const rest = (await this.keysUnder(prefix)).filter((k) => after === null || compareKeys(k, after) > 0);
    const keys = rest.slice(0, limit);
    return { keys, next: rest.length > limit ? keys[keys.length - 1]! : null };
  }

  async deletePrefix(prefix: string): Promise<void> {
    if (!prefix.endsWith('/')) throw new Error(`blob prefix must end in /: ${prefix}`);
    // The folder goes too, so no empty directories pile up.
    const folder = this.file(prefix.slice(0, -1));
    for (const known of this.folders) if (known === folder || known.startsWith(folder + sep)) this.folders.delete(known);
    await rm(folder, { recursive: true, force: true });
  }

  async removeStaleTemp(before: number): Promise<number> {
    let removed = 0;
    await this.walk(this.root, async (full, name) => {
      if (!isTemp(name)) return;
      const info = await stat(full).catch(() => null);
      if (info && info.mtimeMs < before) {
        await rm(full, { force: true });
        removed++;
      }
    });
    return removed;
  }

  async check(): Promise<void> {
    try {
      await mkdir(this.root, { recursive: true });
      await access(this.root, constants.R_OK | constants.W_OK);
    } catch (err) {
      throw new AppError('blob_unavailable', `blob store unavailable: folder ${this.root} is not usable: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { cause: err });
    }
  }

  close(): void {}

  private createFolder(folder: string): Promise<void> {
    let created = this.creating.get(folder);
    if (!created) {
      created = mkdir(folder, { recursive: true })
        .then(() => this.knowFolder(folder))
        .finally(() => this.creating.delete(folder));
      this.creating.set(folder, created);
    }
    return created;
  }

  private knowFolder(folder: string): void {
    if (this.folders.size >= KNOWN_FOLDERS_MAX) this.folders.clear();
    this.folders.add(folder);
  }

  private async keysUnder(prefix: string): Promise<string[]> {
    const out: string[] = [];
    await this.walk(this.folderOf(prefix), async (full, name) => {
      if (!isTemp(name)) out.push(relative(this.root, full).split(sep).join('/'));
    });
    return out.filter((k) => k.startsWith(prefix)).sort(compareKeys);
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
