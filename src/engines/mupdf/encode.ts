// Encoding a drawn page: packed 8-bit RGB pixels to PNG or JPEG with libvips (sharp, native),
// the resolution recorded as MuPDF's own encoders did. Importing this configures sharp for the
// whole process.
import sharp from 'sharp';
import { jpegWithDensity, pngWithDensity } from './density.js';

// One libvips thread per process: the pool already runs one process per core. No operation cache:
// every input is a fresh raster, and the cache would only hold memory the pool's ceiling counts.
sharp.concurrency(1);
sharp.cache(false);

/**
 * PNG at zlib level 3 without row filters: lossless like any level, 6 ms for the A4 benchmark
 * page at 150 dpi against 8.5 ms at level 6 for 1.5 % more bytes (12 against 20 ms and 3 % on a
 * page of text); adaptive filtering costs 25 ms more and gives larger files on rendered pages.
 * MuPDF's own (WASM) encoder took 27 ms.
 */
const PNG_OPTIONS = { compressionLevel: 3, adaptiveFiltering: false } as const;

/**
 * The page's pixels (RGB, 8 bits) as PNG or JPEG, with the resolution recorded in the file.
 * JPEG keeps MuPDF's 4:4:4 chroma (sharp's default 4:2:0 blurs coloured text) and the standard
 * quantisation tables, so a quality gives the same fidelity as MuPDF's encoder did (equal PSNR at
 * 50, 75 and 95). It is baseline with the standard Huffman tables, which libjpeg writes in one
 * streaming pass: 7 ms for the A4 benchmark page at 150 dpi, where MuPDF's progressive WASM
 * encoder took 78 ms. Optimised Huffman tables (16 ms, 13 % smaller) or progressive (47 ms, as
 * small as MuPDF's) buffer the whole image's coefficients (13 MB at 150 dpi, 52 MB at 300),
 * which glibc then keeps in each libuv thread's arena. Quality 0 is 1, as libjpeg reads it.
 */
export async function encodeRgb(pixels: Uint8Array, width: number, height: number, format: 'png' | 'jpg', quality: number, resolution: number): Promise<Buffer> {
  const image = sharp(pixels, { raw: { width, height, channels: 3 } });
  if (format === 'png') return pngWithDensity(await image.png(PNG_OPTIONS).toBuffer(), resolution);
  return jpegWithDensity(await image.jpeg({ quality: Math.max(1, quality), chromaSubsampling: '4:4:4', optimiseCoding: false }).toBuffer(), resolution);
}
