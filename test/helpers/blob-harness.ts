import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { CreateMultipartUploadCommand, DeleteObjectCommand, ListMultipartUploadsCommand, UploadPartCommand } from '@aws-sdk/client-s3';
import { FileBlobStore, type BlobStore } from '../../src/blobs/index.js';
import { S3BlobStore } from '../../src/blobs/s3-blob-store.js';
import { createTestBucket, s3Endpoint, type BlobKind } from './s3.js';

/** A store on fresh ground, and what a test needs to see behind it. */
export interface Harness {
  store: BlobStore;
  /** Every stored name as the backend has it (files under the root, or every key of the bucket). */
  raw(): Promise<string[]>;
  /** What the store prefixes every key with in the backend ('' for files). */
  prefix: string;
  /** Leaves a partial write of `key` behind, as a process killed mid-write would. */
  leavePartialWrite(key: string): Promise<void>;
  /** Removes everything under a prefix directly in the backend, as another process (or an operator) would. */
  removeBehindItsBack(prefix: string): Promise<void>;
  /** Partial writes the backend still holds. */
  partials(): Promise<number>;
  cleanup(): Promise<void>;
}

async function walk(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(full)));
    else out.push(full);
  }
  return out;
}

export async function harness(kind: BlobKind): Promise<Harness> {
  if (kind === 'file') {
    const root = await mkdtemp(join(tmpdir(), 'pressroom-blobs-'));
    const temps = async () => (await walk(root)).filter((f) => f.endsWith('.tmp')).length;
    return {
      store: new FileBlobStore(root),
      raw: async () => (await walk(root)).map((f) => relative(root, f)).sort(),
      prefix: '',
      async leavePartialWrite(key) {
        await mkdir(dirname(join(root, key)), { recursive: true });
        await writeFile(join(root, `${key}~0123456789ab.tmp`), 'half');
      },
      partials: temps,
      removeBehindItsBack: (p) => rm(join(root, p), { recursive: true, force: true }),
      cleanup: () => rm(root, { recursive: true, force: true }),
    };
  }
  const bucket = await createTestBucket();
  const prefix = `tenant-a/pressroom ${randomBytes(3).toString('hex')}`;
  // Small parts, so a 12 MiB stream exercises a real multipart upload.
  const store = new S3BlobStore({ bucket: bucket.name, prefix, endpoint: s3Endpoint!, region: 'us-east-1', forcePathStyle: true, partSize: 5 * 1024 * 1024 });
  const uploads = async () => (await bucket.client.send(new ListMultipartUploadsCommand({ Bucket: bucket.name }))).Uploads ?? [];
  return {
    store,
    raw: async () => (await bucket.keys()).sort(),
    prefix: `${prefix}/`,
    async leavePartialWrite(key) {
      const Key = `${prefix}/${key}`;
      const { UploadId } = await bucket.client.send(new CreateMultipartUploadCommand({ Bucket: bucket.name, Key }));
      await bucket.client.send(new UploadPartCommand({ Bucket: bucket.name, Key, UploadId, PartNumber: 1, Body: Buffer.alloc(5 * 1024 * 1024, 1) }));
    },
    partials: async () => (await uploads()).length,
    async removeBehindItsBack(p) {
      for (const Key of await bucket.keys()) if (Key.startsWith(`${prefix}/${p}`)) await bucket.client.send(new DeleteObjectCommand({ Bucket: bucket.name, Key }));
    },
    async cleanup() {
      store.close();
      await bucket.remove();
    },
  };
}

