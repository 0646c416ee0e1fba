import type { Readable } from 'node:stream';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { AppError } from '../errors.js';

/** Limits applied while reading one ZIP; every one is checked on the bytes actually inflated. */
export interface ZipLimits {
  /** Most entries (files and folders). */
  readonly maxEntries: number;
  /** Most uncompressed bytes over all entries. */
  readonly maxBytes: number;
  /** Highest uncompressed:compressed ratio of one entry. @defaultValue 200 */
  readonly maxRatio?: number;
  /** The ratio limit applies to entries larger than this. @defaultValue 1048576 (1 MiB) */
  readonly ratioMinBytes?: number;
}

/** One entry of a ZIP: a folder, or a file with its whole content. */
export type ZipEntry = { readonly kind: 'directory'; readonly name: string } | { readonly kind: 'file'; readonly name: string; readonly data: Buffer };

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;

function refuse(message: string, entry?: string, cause?: unknown): AppError {
  const text = entry === undefined ? message : `ZIP entry "${entry}": ${message}`;
  return new AppError('invalid_zip', text, { details: [{ ...(entry === undefined ? {} : { field: entry }), message }], cause });
}

/** Names yauzl lets through but a safe extractor must still refuse. */
function nameProblem(name: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'name contains a control character';
  const segments = (name.endsWith('/') ? name.slice(0, -1) : name).split('/');
  if (segments.some((s) => s === '')) return 'name has an empty segment';
  if (segments.some((s) => s === '.')) return 'name has a "." segment';
  return undefined;
}

// yauzl refuses zip-slip names itself (strictFileNames); say which entry and why in our words.
const yauzlNameErrors: [RegExp, string][] = [
  [/^absolute path: (.*)$/s, 'absolute paths are not allowed'],
  [/^invalid relative path: (.*)$/s, '".." segments are not allowed'],
  [/^invalid characters in fileName: (.*)$/s, 'backslashes are not allowed'],
];

function fromYauzl(err: Error): AppError {
  for (const [re, message] of yauzlNameErrors) {
    const m = re.exec(err.message);
    if (m) return refuse(message, m[1], err);
  }
  return refuse(`not a readable ZIP: ${err.message}`, undefined, err);
}

function open(buffer: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    // strictFileNames: backslashes are refused instead of being turned into folders.
    yauzl.fromBuffer(buffer, { lazyEntries: true, validateEntrySizes: true, strictFileNames: true, decodeStrings: true }, (err, zip) => {
      if (err || !zip) reject(refuse(`not a readable ZIP: ${err?.message ?? 'no archive'}`, undefined, err));
      else resolve(zip);
    });
  });
}

function openStream(zip: ZipFile, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => (err || !stream ? reject(err ?? new Error('no stream')) : resolve(stream)));
  });
}

/**
 * Reads every entry of a ZIP held in memory, refusing unsafe archives (invalid_zip):
 * zip-slip names, symlinks, encrypted entries, duplicates, lying sizes, too many
 * entries, too many bytes or too high a compression ratio. Inflation stops at the
 * first byte over a limit, so a bomb never expands beyond it.
 */
export async function readZip(buffer: Buffer, limits: ZipLimits): Promise<ZipEntry[]> {
  const maxRatio = limits.maxRatio ?? 200;
  const ratioMinBytes = limits.ratioMinBytes ?? 1024 * 1024;
  const zip = await open(buffer);
  if (zip.entryCount > limits.maxEntries) {
    zip.close();
    throw refuse(`the ZIP has ${zip.entryCount} entries; at most ${limits.maxEntries} are allowed`);
  }
  const entries: ZipEntry[] = [];
  const seen = new Set<string>();
  let total = 0;

  const readEntry = async (entry: Entry): Promise<void> => {
    const name = entry.fileName;
    const problem = nameProblem(name);
    if (problem) throw refuse(problem, name);
    if (seen.has(name)) throw refuse('duplicate name', name);
    seen.add(name);
    if (((entry.externalFileAttributes >>> 16) & S_IFMT) === S_IFLNK) throw refuse('symbolic links are not allowed', name);
    if (entry.isEncrypted()) throw refuse('encrypted entries are not allowed', name);
    if (name.endsWith('/')) {
      entries.push({ kind: 'directory', name });
      return;
    }
    if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) throw refuse(`compression method ${entry.compressionMethod} is not supported`, name);
    // Headers are checked first to refuse honest bombs cheaply; the stream checks below catch liars.
    if (total + entry.uncompressedSize > limits.maxBytes) throw refuse(`more than ${limits.maxBytes} bytes uncompressed in total`, name);
    const ratioOf = (bytes: number) => bytes / Math.max(entry.compressedSize, 1);
    if (entry.uncompressedSize > ratioMinBytes && ratioOf(entry.uncompressedSize) > maxRatio) throw refuse(`compression ratio above ${maxRatio}:1`, name);

    const stream = await openStream(zip, entry).catch((err: Error) => {
      throw refuse(err.message, name, err);
    });
    const chunks: Buffer[] = [];
    let size = 0;
    await new Promise<void>((resolve, reject) => {
      const fail = (err: AppError) => {
        stream.destroy();
        reject(err);
      };
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (total + size > limits.maxBytes) return fail(refuse(`more than ${limits.maxBytes} bytes uncompressed in total`, name));
        if (size > ratioMinBytes && ratioOf(size) > maxRatio) return fail(refuse(`compression ratio above ${maxRatio}:1`, name));
        chunks.push(chunk);
      });
      stream.on('error', (err: Error) => {
        const lying = /bytes in the stream/.test(err.message);
        fail(refuse(lying ? `size in the ZIP header is wrong (${err.message})` : `cannot be read: ${err.message}`, name));
      });
      stream.on('end', () => resolve());
    });
    total += size;
    entries.push({ kind: 'file', name, data: Buffer.concat(chunks, size) });
  };

  try {
    await new Promise<void>((resolve, reject) => {
      zip.on('entry', (entry: Entry) => {
        if (entries.length >= limits.maxEntries) return reject(refuse(`more than ${limits.maxEntries} entries`));
        readEntry(entry).then(() => zip.readEntry(), reject);
      });
      zip.on('end', () => resolve());
      zip.on('error', (err: Error) => reject(fromYauzl(err)));
      zip.readEntry();
    });
  } finally {
    zip.close();
  }
  return entries;
}
