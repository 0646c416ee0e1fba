import type { Readable } from 'node:stream';

/** Splits a stream into buffers of `size` bytes (the last may be shorter). */
export async function* chunksOf(stream: Readable, size: number): AsyncGenerator<Buffer> {
  let pending: Buffer[] = [];
  let length = 0;
  for await (const piece of stream) {
    let buf = piece as Buffer;
    while (length + buf.length >= size) {
      const take = size - length;
      yield Buffer.concat([...pending, buf.subarray(0, take)]);
      buf = buf.subarray(take);
      pending = [];
      length = 0;
    }
    if (buf.length > 0) {
      pending.push(buf);
      length += buf.length;
    }
  }
  if (length > 0) yield Buffer.concat(pending);
}
