import type { Context } from '../context.js';

/**
 * The input blobs one request wrote. A request refused part way (a fanout over quota, a bad
 * part) stores no tickets, so nothing would ever point at these blobs: discard() removes them.
 */
export class InputBlobs {
  private readonly written: string[] = [];

  constructor(private readonly ctx: Context) {}

  /** Stores one input blob and remembers it. */
  async put(key: string, body: Buffer): Promise<void> {
    await this.ctx.blobs.putUnreferenced(key, body);
    this.written.push(key);
  }

  /** Deletes every blob put so far. */
  async discard(): Promise<void> {
    await Promise.all(this.written.map((k) => this.ctx.blobs.delete(k)));
  }
}
