import { fileURLToPath } from 'node:url';
import { assertKey } from './blob-store.js';

/** Where `PRESSROOM_BLOB_URL` points: a folder, or a bucket and a key prefix in it. */
export type BlobLocation = { readonly kind: 'file'; readonly path: string } | { readonly kind: 's3'; readonly bucket: string; readonly prefix: string };

// S3's rules for bucket names (virtual-hosted style needs them DNS-safe): 3–63 lower-case letters,
// digits, dots and hyphens, starting and ending with a letter or digit.
const bucketPattern = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** Parses a `file://` or `s3://<bucket>/<prefix>` URL; throws an Error whose message names the problem. */
export function parseBlobUrl(url: string): BlobLocation {
  if (url.startsWith('file://')) {
    let path: string;
    try {
      path = fileURLToPath(url);
    } catch (err) {
      throw new Error(`PRESSROOM_BLOB_URL "${url}" is not a usable file:// URL: ${(err as Error).message}`, { cause: err });
    }
    if (!path || path === '/') throw new Error('PRESSROOM_BLOB_URL file:// needs a folder, e.g. file:///srv/pressroom/blobs');
    return { kind: 'file', path };
  }
  // Not parsed with URL: it would lower-case the bucket and percent-decode the prefix silently.
  const m = /^s3:\/\/([^/]*)\/?(.*)$/.exec(url);
  if (!m) throw new Error('PRESSROOM_BLOB_URL must be a file:// or s3://<bucket>/<prefix> URL');
  const bucket = m[1]!;
  if (bucket === '') throw new Error('PRESSROOM_BLOB_URL s3:// names no bucket: use s3://<bucket>/<prefix>');
  if (!bucketPattern.test(bucket) || bucket.includes('..')) {
    throw new Error(`PRESSROOM_BLOB_URL bucket "${bucket}" is not a valid bucket name (3 to 63 lower-case letters, digits, dots and hyphens)`);
  }
  const prefix = m[2]!.replace(/\/+$/, '');
  if (prefix !== '') {
    try {
      assertKey(prefix);
    } catch {
      throw new Error(`PRESSROOM_BLOB_URL prefix "${prefix}" is not allowed: segments of letters, digits, space and . _ - + @ ( ), no empty, "." or ".." segment`);
    }
  }
  return { kind: 's3', bucket, prefix };
}
