import { crc32, deflateSync } from 'node:zlib';

function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([len, body, crc]);
}

/** A PNG of 8-bit RGB scanlines (`raw`: each row a filter byte, then width × 3 bytes), deflated at `level`. */
export function rgbPng(width: number, height: number, raw: Buffer, level?: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, level === undefined ? {} : { level })), chunk('IEND', Buffer.alloc(0))]);
}

/**
 * An RGB PNG of the given size with a colour gradient. `noise` adds random pixels so the
 * file does not compress away (to reach a target size such as the benchmark's 50 KB).
 */
export function tinyPng(width: number, height: number, noise = false): Buffer {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1);
    raw[row] = 0;
    for (let x = 0; x < width; x++) {
      const o = row + 1 + x * 3;
      raw[o] = noise ? Math.floor(Math.random() * 256) : (x * 255) / width;
      raw[o + 1] = noise ? Math.floor(Math.random() * 256) : (y * 255) / height;
      raw[o + 2] = 128;
    }
  }
  return rgbPng(width, height, raw);
}
