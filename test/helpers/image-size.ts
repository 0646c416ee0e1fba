// Image headers in tests: format signature and pixel size of PNG and JPEG files.

/** `png`, `jpeg` or undefined, from the file signature. */
export function imageFormat(data: Uint8Array): 'png' | 'jpeg' | undefined {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  return undefined;
}

/** Width and height from the PNG IHDR chunk or the JPEG start-of-frame marker. */
export function imageSize(data: Uint8Array): { width: number; height: number } {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const format = imageFormat(b);
  if (format === 'png') {
    if (b.toString('ascii', 12, 16) !== 'IHDR') throw new Error('PNG without IHDR first');
    return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  }
  if (format === 'jpeg') {
    let o = 2;
    while (o + 9 < b.length) {
      if (b[o] !== 0xff) throw new Error(`JPEG marker expected at ${o}`);
      const marker = b[o + 1]!;
      const length = b.readUInt16BE(o + 2);
      // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: b.readUInt16BE(o + 7), height: b.readUInt16BE(o + 5) };
      }
      o += 2 + length;
    }
    throw new Error('JPEG without a frame header');
  }
  throw new Error('neither PNG nor JPEG');
}
