// The resolution a page was drawn at, recorded in its image the way MuPDF's own encoders did:
// the PNG pHYs chunk (pixels per metre) and the JPEG JFIF header (dots per inch). libvips writes a
// resolution only inside an EXIF block (which also tags the colours "uncalibrated"), so the
// encoded files are finished here instead.
import { crc32 } from 'node:zlib';

const PNG_SIGNATURE_BYTES = 8;

/** `png` with its pHYs chunk set to `dpi` (rewritten in place when there is one, else added after IHDR). */
export function pngWithDensity(png: Buffer, dpi: number): Buffer {
  const perMetre = Math.round(dpi / 0.0254);
  const phys = Buffer.alloc(21);
  phys.writeUInt32BE(9, 0);
  phys.write('pHYs', 4, 'latin1');
  phys.writeUInt32BE(perMetre, 8);
  phys.writeUInt32BE(perMetre, 12);
  phys[16] = 1; // unit: metre
  phys.writeUInt32BE(crc32(phys.subarray(4, 17)), 17);
  const ihdrEnd = PNG_SIGNATURE_BYTES + 12 + png.readUInt32BE(PNG_SIGNATURE_BYTES);
  for (let at = ihdrEnd; at + 8 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'pHYs' && length === 9) {
      phys.copy(png, at);
      return png;
    }
    // pHYs must come before the image data.
    if (type === 'IDAT' || type === 'IEND') break;
    at += 12 + length;
  }
  return Buffer.concat([png.subarray(0, ihdrEnd), phys, png.subarray(ihdrEnd)]);
}

/** `jpeg` with a JFIF header giving `dpi` (an integer up to 65535): its own header rewritten in place, or one added after SOI. */
export function jpegWithDensity(jpeg: Buffer, dpi: number): Buffer {
  const hasJfif = jpeg[2] === 0xff && jpeg[3] === 0xe0 && jpeg.toString('latin1', 6, 11) === 'JFIF\0';
  if (hasJfif) {
    jpeg[13] = 1; // units: dots per inch
    jpeg.writeUInt16BE(dpi, 14);
    jpeg.writeUInt16BE(dpi, 16);
    return jpeg;
  }
  // APP0: length 16, "JFIF\0", version 1.01, dots per inch, X and Y density, no thumbnail.
  const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x01, dpi >> 8, dpi & 0xff, dpi >> 8, dpi & 0xff, 0x00, 0x00]);
  return Buffer.concat([jpeg.subarray(0, 2), app0, jpeg.subarray(2)]);
}
