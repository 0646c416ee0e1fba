import type { ByteRange } from '../blobs/index.js';

/** What a `Range` header asks of a file of `size` bytes. */
export type RangeAnswer = { readonly kind: 'whole' } | { readonly kind: 'part'; readonly range: ByteRange } | { readonly kind: 'unsatisfiable' };

/**
 * Reads one `Range: bytes=a-b` (also `a-` and `-n`) against a file of `size` bytes (RFC 9110 §14).
 * A header that is absent, malformed, of another unit or with several ranges is ignored (the
 * whole file is sent), as the RFC allows; a range that names no byte of the file is unsatisfiable.
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  const m = header === undefined ? null : /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'whole' };
  const [first, last] = [m[1]!, m[2]!];
  if (first === '') {
    // A suffix: the last n bytes (all of them when n exceeds the size).
    const n = Number(last);
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' };
    return { kind: 'part', range: { start: Math.max(0, size - n), end: size - 1 } };
  }
  const start = Number(first);
  if (last !== '' && Number(last) < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  const end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
  return { kind: 'part', range: { start, end } };
}
