import { createHash } from 'node:crypto';

/**
 * sha256 of file contents, remembered for contents seen recently: a picture every request
 * carries in its ZIP arrives as a new buffer each time, and hashing 50 KB took 45–80 µs per
 * job, where finding it again by its length and a few sampled bytes and comparing it byte for
 * byte takes about 2. A content is only ever answered with the hash of identical bytes.
 *
 * Holds a copy of each remembered content (a buffer may be a slice of a whole request body),
 * at most `maxBytes` in all; the least recently used go first.
 */
export class ContentHashes {
  private readonly recent = new Map<string, { data: Buffer; sha256: string }>();
  private bytes = 0;
  /** Hashes of buffers seen before: cached templates and repository files come back as the same object. */
  private readonly byObject = new WeakMap<Buffer, string>();

  constructor(private readonly maxBytes: number) {}

  /** sha256 of `data`, hex. */
  of(data: Buffer): string {
    const known = this.byObject.get(data);
    if (known !== undefined) return known;
    const key = sampleKey(data);
    const seen = this.recent.get(key);
    if (seen?.data.equals(data)) {
      this.recent.delete(key);
      this.recent.set(key, seen);
      this.byObject.set(data, seen.sha256);
      return seen.sha256;
    }
    const sha256 = createHash('sha256').update(data).digest('hex');
    this.byObject.set(data, sha256);
    if (data.length <= this.maxBytes / 8) this.remember(key, data, sha256);
    return sha256;
  }

  private remember(key: string, data: Buffer, sha256: string): void {
    const replaced = this.recent.get(key);
    if (replaced) {
      this.recent.delete(key);
      this.bytes -= replaced.data.length;
    }
    this.recent.set(key, { data: Buffer.from(data), sha256 });
    this.bytes += data.length;
    for (const [oldest, entry] of this.recent) {
      if (this.bytes <= this.maxBytes) break;
      this.recent.delete(oldest);
      this.bytes -= entry.data.length;
    }
  }
}

/** The length and 48 bytes from the start, the middle and the end: equal contents have equal keys. */
function sampleKey(data: Buffer): string {
  const middle = Math.max(0, (data.length >> 1) - 8);
  return `${data.length}:${data.toString('latin1', 0, 16)}${data.toString('latin1', middle, middle + 16)}${data.toString('latin1', Math.max(0, data.length - 16))}`;
}
