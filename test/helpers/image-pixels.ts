// Decoding PNG and JPEG output in tests, with MuPDF's decoders (not the encoder's own library),
// to check what a reader of the file gets: pixel size, resolution and colours.
import * as mupdf from 'mupdf';

export interface DecodedImage {
  width: number;
  height: number;
  /** The resolution recorded in the file (pHYs or JFIF), in dpi. */
  xdpi: number;
  ydpi: number;
  /** The RGB colour at (x, y). */
  rgb(x: number, y: number): [number, number, number];
}

/** Decodes a PNG or JPEG file to RGB. */
export function decodeImage(data: Uint8Array): DecodedImage {
  const image = new mupdf.Image(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
  try {
    const decoded = image.toPixmap();
    try {
      const rgb = decoded.getNumberOfComponents() === 3 && !decoded.getAlpha() ? decoded : decoded.convertToColorSpace(mupdf.ColorSpace.DeviceRGB, false);
      try {
        const width = rgb.getWidth();
        const stride = rgb.getStride();
        // getPixels() views WASM memory, which later MuPDF calls may move: copy it.
        const pixels = Buffer.from(rgb.getPixels());
        return {
          width,
          height: rgb.getHeight(),
          xdpi: image.getXResolution(),
          ydpi: image.getYResolution(),
          rgb: (x, y) => {
            const o = y * stride + x * 3;
            return [pixels[o]!, pixels[o + 1]!, pixels[o + 2]!];
          },
        };
      } finally {
        if (rgb !== decoded) rgb.destroy();
      }
    } finally {
      decoded.destroy();
    }
  } finally {
    image.destroy();
  }
}

/** Whether two colours differ by at most `tolerance` in every channel. */
export function near(actual: readonly number[], expected: readonly number[], tolerance: number): boolean {
  return actual.every((c, i) => Math.abs(c - expected[i]!) <= tolerance);
}
