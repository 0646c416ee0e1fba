import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { BufferArchive } from './buffer-archive.js';
import { refuse } from './refusals.js';

// yauzl over an archive held in memory, and the checksum of what it yields.

/** Opens an archive held in memory, its entries one at a time (lazyEntries). */
export function open(buffer: Buffer): Promise<ZipFile> {
  return new Promise((resolve, reject) => {
    // strictFileNames: backslashes are refused instead of being turned into folders.
    const options = { lazyEntries: true, validateEntrySizes: true, strictFileNames: true, decodeStrings: true, autoClose: false };
    yauzl.fromRandomAccessReader(new BufferArchive(buffer), buffer.length, options, (err, zip) => {
      if (err || !zip) reject(refuse(`not a readable ZIP: ${err?.message ?? 'no archive'}`, undefined, err));
      else resolve(zip);
    });
  });
}

/** A CRC-32 as the ZIP header's hexadecimal. */
export const hex = (crc: number) => crc.toString(16).padStart(8, '0');

/** Bytes checksummed between turns of the event loop (about 0.2 ms), so a large stored file does not block it. */
const CRC_SLICE = 1024 * 1024;

/** The CRC-32 of `data`, a slice at a time. */
export async function crcOf(data: Buffer): Promise<number> {
  let crc = crc32(data.subarray(0, CRC_SLICE));
  for (let at = CRC_SLICE; at < data.length; at += CRC_SLICE) {
    await new Promise((resolve) => setImmediate(resolve));
    crc = crc32(data.subarray(at, at + CRC_SLICE), crc);
  }
  return crc;
}

/** An entry's bytes as yauzl streams them (inflated). */
export function openStream(zip: ZipFile, entry: Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => (err || !stream ? reject(err ?? new Error('no stream')) : resolve(stream)));
  });
}
