import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import { assertKey, type BlobInfo, type BlobPage, type BlobStore, type ByteRange } from './blob-store.js';
import { isNoSuchKey, s3Failure, type S3Where } from './s3-errors.js';

/** Where and how to reach the bucket. Credentials come from the AWS SDK's default chain. */
export interface S3StoreOptions {
  readonly bucket: string;
  /** Every key is stored under `<prefix>/` ('' for the bucket's root). */
  readonly prefix: string;
  /** S3-compatible endpoint (MinIO, Ceph, moto); null for AWS itself. */
  readonly endpoint: string | null;
  readonly region: string;
  readonly forcePathStyle: boolean;
  /** Size of one part of a multipart upload; larger blobs go in parts, smaller ones in one PUT. @defaultValue 8 MiB */
  readonly partSize?: number;
}

// S3 allows at most 1000 keys per listing page and at least 5 MiB per part.
const MAX_PAGE = 1000;
const DEFAULT_PART = 8 * 1024 * 1024;
// Deleting many keys: one request each (DeleteObjects needs checksums some S3-compatible servers lack), a few at a time.
const DELETE_PARALLEL = 8;

/**
 * Blobs as objects in an S3 bucket. A PUT and a completed multipart upload are atomic, so an
 * object appears under its key only when whole; a failed upload is aborted (and a crashed
 * process's leftover parts are aborted by `removeStaleTemp`).
 */
export class S3BlobStore implements BlobStore {
  readonly description: string;
  private readonly client: S3Client;
  private readonly where: S3Where;
  private readonly partSize: number;

  constructor(private readonly opts: S3StoreOptions) {
    this.where = { bucket: opts.bucket, endpoint: opts.endpoint ?? `AWS S3 (${opts.region})` };
    this.description = `s3://${opts.bucket}/${opts.prefix} at ${this.where.endpoint}`;
    this.partSize = Math.max(5 * 1024 * 1024, opts.partSize ?? DEFAULT_PART);
    this.client = new S3Client({
      region: opts.region,
      ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
      forcePathStyle: opts.forcePathStyle,
      // Checksums only where S3 requires them: many S3-compatible servers reject the newer ones.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      // No overall request timeout: a large download may take long; a stalled socket may not.
      requestHandler: { connectionTimeout: 5000, socketTimeout: 60_000, httpAgent: { keepAlive: true, maxSockets: 64 }, httpsAgent: { keepAlive: true, maxSockets: 64 } },
    });
  }

  private full(key: string): string {
    assertKey(key);
    return this.opts.prefix ? `${this.opts.prefix}/${key}` : key;
  }

  private fullPrefix(prefix: string): string {
    return this.opts.prefix ? `${this.opts.prefix}/${prefix}` : prefix;
  }

  private strip(fullKey: string): string {
    return this.opts.prefix ? fullKey.slice(this.opts.prefix.length + 1) : fullKey;
  }

  async put(key: string, data: Buffer | Readable): Promise<number> {
    const Key = this.full(key);
    const Bucket = this.opts.bucket;
    try {
      if (Buffer.isBuffer(data) && data.length <= this.partSize) {
        await this.client.send(new PutObjectCommand({ Bucket, Key, Body: data, ContentLength: data.length }));
        return data.length;
      }
      let bytes = 0;
      const body = Buffer.isBuffer(data)
        ? data
        : Readable.from(
            (async function* count() {
              for await (const chunk of data) {
                bytes += (chunk as Buffer).length;
                yield chunk as Buffer;
              }
            })(),
          );
      // lib-storage sends one PUT when the stream is shorter than a part, else a multipart upload
      // that it aborts on failure; the object exists only after CompleteMultipartUpload.
      const upload = new Upload({ client: this.client, params: { Bucket, Key, Body: body }, partSize: this.partSize, queueSize: 4, leavePartsOnError: false });
      await upload.done();
      return Buffer.isBuffer(data) ? data.length : bytes;
    } catch (err) {
      throw s3Failure(err, this.where, 'put', key);
    }
  }

  /** An object appears only once its upload completes anyway: the same as {@link put}. */
  putUnreferenced(key: string, data: Buffer): Promise<number> {
    return this.put(key, data);
  }

  async get(key: string): Promise<Buffer | undefined> {
    const stream = await this.stream(key);
    if (!stream) return undefined;
    const chunks: Buffer[] = [];
    try {
      for await (const chunk of stream) chunks.push(chunk as Buffer);
    } catch (err) {
      throw s3Failure(err, this.where, 'get', key);
    }
    return Buffer.concat(chunks);
  }

  async stream(key: string, range?: ByteRange): Promise<Readable | undefined> {
    const Key = this.full(key);
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.opts.bucket, Key, ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
      // In Node the body is the response stream itself: bytes flow through, nothing is buffered.
      return res.Body as Readable;
    } catch (err) {
      if (isNoSuchKey(err)) return undefined;
      throw s3Failure(err, this.where, 'get', key);
    }
  }

  async stat(key: string): Promise<BlobInfo | undefined> {
    const Key = this.full(key);
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.opts.bucket, Key }));
      return { size: res.ContentLength ?? 0, modified: res.LastModified?.getTime() ?? 0 };
    } catch (err) {
      if (isNoSuchKey(err)) return undefined;
      throw s3Failure(err, this.where, 'stat', key);
    }
  }

  async size(key: string): Promise<number | undefined> {
    return (await this.stat(key))?.size;
  }

  async delete(key: string): Promise<void> {
    // S3 has no folders, so there is nothing to prune; deleting a missing key succeeds.
    await this.deleteObject(this.full(key), key);
  }

  private async deleteObject(Key: string, key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.opts.bucket, Key }));
    } catch (err) {
      throw s3Failure(err, this.where, 'delete', key);
    }
  }

  async list(prefix: string): Promise<string[]> {
    const out: string[] = [];
    let after: string | null = null;
    do {
      const page: BlobPage = await this.listPage(prefix, { after, limit: MAX_PAGE });
      out.push(...page.keys);
      after = page.next;
    } while (after !== null);
    return out;
  }

  async listPage(prefix: string, opts: { after?: string | null; limit?: number } = {}): Promise<BlobPage> {
    const limit = Math.min(MAX_PAGE, Math.max(1, opts.limit ?? MAX_PAGE));
    try {
      const res = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.opts.bucket,
          Prefix: this.fullPrefix(prefix),
          MaxKeys: limit,
          ...(opts.after ? { StartAfter: this.fullPrefix(opts.after) } : {}),
        }),
      );
      const keys = (res.Contents ?? []).map((o) => this.strip(o.Key!));
      return { keys, next: res.IsTruncated && keys.length > 0 ? keys[keys.length - 1]! : null };
    } catch (err) {
      throw s3Failure(err, this.where, 'list', prefix);
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    if (!prefix.endsWith('/')) throw new Error(`blob prefix must end in /: ${prefix}`);
    let after: string | null = null;
    do {
      const page: BlobPage = await this.listPage(prefix, { after, limit: MAX_PAGE });
      for (let i = 0; i < page.keys.length; i += DELETE_PARALLEL) {
        await Promise.all(page.keys.slice(i, i + DELETE_PARALLEL).map((k) => this.deleteObject(this.fullPrefix(k), k)));
      }
      after = page.next;
    } while (after !== null);
  }

  async removeStaleTemp(before: number): Promise<number> {
    let removed = 0;
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    try {
      for (;;) {
        const res = await this.client.send(
          new ListMultipartUploadsCommand({ Bucket: this.opts.bucket, Prefix: this.fullPrefix(''), KeyMarker: keyMarker, UploadIdMarker: uploadIdMarker }),
        );
        for (const u of res.Uploads ?? []) {
          if (!u.Key || !u.UploadId || (u.Initiated?.getTime() ?? Infinity) >= before) continue;
          await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.opts.bucket, Key: u.Key, UploadId: u.UploadId }));
          removed++;
        }
        if (!res.IsTruncated) return removed;
        keyMarker = res.NextKeyMarker;
        uploadIdMarker = res.NextUploadIdMarker;
      }
    } catch (err) {
      throw s3Failure(err, this.where, 'abort stale uploads');
    }
  }

  async check(): Promise<void> {
    // A listing needs the bucket, working credentials and s3:ListBucket, and its errors say which is missing.
    try {
      await this.client.send(new ListObjectsV2Command({ Bucket: this.opts.bucket, Prefix: this.fullPrefix(''), MaxKeys: 1 }));
    } catch (err) {
      throw s3Failure(err, this.where);
    }
  }

  close(): void {
    this.client.destroy();
  }
}
