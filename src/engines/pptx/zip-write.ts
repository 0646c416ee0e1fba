import { ZipFile } from 'yazl';

/** One file of a ZIP being written. */
export interface ZipOut {
  name: string;
  data: Buffer;
  /** Deflate it (XML); media is stored as is since it is compressed already. */
  compress: boolean;
}

// A fixed timestamp keeps the output byte-identical for identical input (tests, caching).
const MTIME = new Date(Date.UTC(2000, 0, 1));

/** Writes the entries, in the given order, to a ZIP held in memory. */
export function writeZip(entries: readonly ZipOut[]): Promise<Buffer> {
  const zip = new ZipFile();
  for (const e of entries) zip.addBuffer(e.data, e.name, { compress: e.compress, mtime: MTIME, forceDosTimestamp: true });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}
