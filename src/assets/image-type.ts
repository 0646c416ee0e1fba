/** Image formats a downloaded asset may have, named by the file extension it gets in the job. */
export type ImageType = 'png' | 'jpg' | 'gif' | 'webp' | 'svg';

/** Content-Type values (without parameters) accepted for assets, with their format. */
const contentTypes: Record<string, ImageType> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
};

/** The image format a Content-Type header announces, or null for anything else (or none). */
export function typeOfContentType(header: string | undefined): ImageType | null {
  if (!header) return null;
  const base = header.split(';')[0]!.trim().toLowerCase();
  return contentTypes[base] ?? null;
}

const startsWith = (b: Buffer, sig: readonly number[]) => b.length >= sig.length && sig.every((v, i) => b[i] === v);

/**
 * The image format of `data` judged by its first bytes, or null when it is none of the
 * accepted ones. SVG has no signature: it must begin (after a BOM, white space, an XML
 * declaration or comments) with markup and hold an `<svg` element early on.
 */
export function sniffImageType(data: Buffer): ImageType | null {
  if (startsWith(data, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
  if (startsWith(data, [0xff, 0xd8, 0xff])) return 'jpg';
  if (startsWith(data, [0x47, 0x49, 0x46, 0x38])) return 'gif';
  if (data.length >= 12 && startsWith(data, [0x52, 0x49, 0x46, 0x46]) && data.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  const head = data.subarray(0, 4096).toString('utf8').replace(/^\uFEFF/, '').trimStart();
  if (head.startsWith('<') && /<svg[\s>]/i.test(head)) return 'svg';
  return null;
}

/** Extensions of URL paths that name an image (which makes a URL in the data an asset). */
export const imageExtensions = /\.(png|jpe?g|gif|webp|svg)$/i;
