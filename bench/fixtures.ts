// Deterministic inputs for the benchmark documents: seeded PNGs and ZIP bodies.
import { crc32 } from 'node:zlib';
import { rgbPng } from '../test/helpers/png.js';

/** A small seeded PRNG (mulberry32), so every run renders the same pictures. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function png(side: number, seed: number): Buffer {
  const next = random(seed);
  const hue = [next() * 255, next() * 255, next() * 255];
  const raw = Buffer.alloc((side * 3 + 1) * side);
  for (let y = 0; y < side; y++) {
    const row = y * (side * 3 + 1);
    for (let x = 0; x < side; x++) {
      const o = row + 1 + x * 3;
      // A gradient in the picture's own colours, with noise so that it does not compress away.
      raw[o] = (hue[0]! + (x * 128) / side + next() * 96) & 255;
      raw[o + 1] = (hue[1]! + (y * 128) / side + next() * 96) & 255;
      raw[o + 2] = (hue[2]! + next() * 96) & 255;
    }
  }
  return rgbPng(side, side, raw, 9);
}

const pngs = new Map<number, Buffer>();

/** A square RGB PNG of at least `minBytes` (about 50 KB), the same for the same seed. */
export function benchPng(seed: number, minBytes = 50_000): Buffer {
  let out = pngs.get(seed);
  if (!out) {
    for (let side = 120; !out || out.length < minBytes; side += 4) out = png(side, seed);
    pngs.set(seed, out);
  }
  return out;
}

/** A ZIP of `entries`, stored uncompressed (the service unpacks it; a ZIP writer need not be fast). */
export function storedZip(entries: [string, Buffer][]): Buffer {
  const locals: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const fileName = Buffer.from(name, 'utf8');
    const crc = crc32(data) >>> 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4); // version needed
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(0, 8); // stored
    local.writeUInt32LE(0x00210000, 10); // 1980-01-01 00:00
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    local.writeUInt16LE(0, 28);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0);
    dir.writeUInt16LE(20, 4);
    dir.writeUInt16LE(20, 6);
    dir.writeUInt16LE(0x0800, 8);
    dir.writeUInt16LE(0, 10);
    dir.writeUInt32LE(0x00210000, 12);
    dir.writeUInt32LE(crc, 16);
    dir.writeUInt32LE(data.length, 20);
    dir.writeUInt32LE(data.length, 24);
    dir.writeUInt16LE(fileName.length, 28);
    dir.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    central.push(dir, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const dirBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dirBytes.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dirBytes, end]);
}

/** Escapes text for an XML element or attribute. */
export const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The p-th percentile (nearest rank) of `xs`. */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
