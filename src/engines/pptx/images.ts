// Image files: format and pixel size read from the headers (PNG, JPEG, GIF), and the
// aspect-preserving placement of an image in a box. No decoding library: the office
// suite decodes; pressroom only makes sure it is an image it can place.
import { PptxError } from './errors.js';
import type { Box } from './shapes.js';

export interface ImageInfo {
  extension: 'png' | 'jpeg' | 'gif';
  contentType: string;
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function png(data: Buffer): ImageInfo | string {
  if (data.length < 33 || data.toString('latin1', 12, 16) !== 'IHDR') return 'a PNG signature without an IHDR header';
  return { extension: 'png', contentType: 'image/png', width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
}

function gif(data: Buffer): ImageInfo | string {
  if (data.length < 13) return 'a truncated GIF header';
  return { extension: 'gif', contentType: 'image/gif', width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
}

// Start-of-frame markers carry the size; C4 (DHT), C8 (JPG) and CC (DAC) share the range but are not frames.
const isSof = (m: number) => m >= 0xc0 && m <= 0xcf && m !== 0xc4 && m !== 0xc8 && m !== 0xcc;

function jpeg(data: Buffer): ImageInfo | string {
  let i = 2;
  while (i + 4 <= data.length) {
    if (data[i] !== 0xff) return `a broken JPEG marker at byte ${i}`;
    const marker = data[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2;
      continue;
    }
    if (marker === 0xd9 || marker === 0xda) return 'a JPEG without a frame header before its image data';
    const length = data.readUInt16BE(i + 2);
    if (length < 2) return `a broken JPEG segment length at byte ${i}`;
    if (isSof(marker)) {
      if (i + 9 > data.length) break;
      return { extension: 'jpeg', contentType: 'image/jpeg', width: data.readUInt16BE(i + 7), height: data.readUInt16BE(i + 5) };
    }
    i += 2 + length;
  }
  return 'a truncated JPEG';
}

/** Format and size of an image; a PptxError('image') for anything else or a broken header. */
export function imageInfo(data: Buffer, name: string): ImageInfo {
  let result: ImageInfo | string;
  if (data.subarray(0, 8).equals(PNG_SIGNATURE)) result = png(data);
  else if (data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) result = jpeg(data);
  else if (/^GIF8[79]a$/.test(data.toString('latin1', 0, 6))) result = gif(data);
  else result = 'neither PNG, JPEG nor GIF';
  if (typeof result === 'string') throw new PptxError('image', `image "${name}" cannot be decoded: ${result}`);
  if (result.width === 0 || result.height === 0 || result.width > 65535 || result.height > 65535) {
    throw new PptxError('image', `image "${name}" cannot be decoded: its size ${result.width} × ${result.height} px is not usable`);
  }
  return result;
}

/** `contain`: the largest box of the image's aspect inside `box`, centred. */
export function containBox(box: Box, width: number, height: number): Box {
  const scale = Math.min(box.cx / width, box.cy / height);
  const cx = Math.round(width * scale);
  const cy = Math.round(height * scale);
  return { x: box.x + Math.round((box.cx - cx) / 2), y: box.y + Math.round((box.cy - cy) / 2), cx, cy };
}

/**
 * `cover`: the crop (a:srcRect, in 1/1000 %) that makes the image fill `box` at its own
 * aspect, cutting equally from both sides of the dimension that is too long.
 */
export function coverCrop(box: Box, width: number, height: number): { l: number; t: number; r: number; b: number } {
  const boxAspect = box.cx / box.cy;
  const imageAspect = width / height;
  if (imageAspect > boxAspect) {
    const cut = Math.round(((1 - boxAspect / imageAspect) / 2) * 100000);
    return { l: cut, t: 0, r: cut, b: 0 };
  }
  const cut = Math.round(((1 - imageAspect / boxAspect) / 2) * 100000);
  return { l: 0, t: cut, r: 0, b: cut };
}
