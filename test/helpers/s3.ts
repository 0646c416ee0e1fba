import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { describe } from 'node:test';
import { CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Settings } from '../../src/config/settings.js';
import { startTestServer, type TestServer } from './server.js';
import type { StoreKind } from './stores.js';

/** The S3-protocol server the tests use (moto_server on loopback, started by .ci/run), or undefined. */
export const s3Endpoint: string | undefined = process.env.PRESSROOM_TEST_S3_ENDPOINT || undefined;

export const S3_SKIP_REASON = 'PRESSROOM_TEST_S3_ENDPOINT not set (start moto_server -H 127.0.0.1 -p <port>, as .ci/run does)';

/**
 * Credentials for moto (it accepts any unless told otherwise). Set in this process's
 * environment because the server under test reads the AWS SDK's default chain, which must
 * never fall through to an instance metadata address in a test.
 */
export const testCredentials = { AWS_ACCESS_KEY_ID: 'pressroom-test', AWS_SECRET_ACCESS_KEY: 'pressroom-test-secret', AWS_EC2_METADATA_DISABLED: 'true' };
Object.assign(process.env, testCredentials);
delete process.env.AWS_SESSION_TOKEN;
delete process.env.AWS_PROFILE;

/** A client for inspecting and arranging the bucket behind the store's back. */
export function testS3Client(endpoint = s3Endpoint!): S3Client {
  return new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: testCredentials.AWS_ACCESS_KEY_ID, secretAccessKey: testCredentials.AWS_SECRET_ACCESS_KEY },
    requestChecksumCalculation: 'WHEN_REQUIRED',
  });
}

/** A fresh bucket for one suite, and a way to look inside it and remove it. */
export interface TestBucket {
  readonly name: string;
  readonly client: S3Client;
  /** Every key in the bucket, whatever its prefix. */
  keys(): Promise<string[]>;
  /** Empties the bucket and deletes it (tests of a bucket that disappears use it too). */
  remove(): Promise<void>;
  /** Creates the bucket again under the same name. */
  recreate(): Promise<void>;
}

export async function createTestBucket(endpoint = s3Endpoint!): Promise<TestBucket> {
  const client = testS3Client(endpoint);
  const name = `pr-test-${randomBytes(6).toString('hex')}`;
  const bucket: TestBucket = {
    name,
    client,
    async keys() {
      const out: string[] = [];
      let token: string | undefined;
      do {
        const res = await client.send(new ListObjectsV2Command({ Bucket: name, ContinuationToken: token }));
        out.push(...(res.Contents ?? []).map((o) => o.Key!));
        token = res.IsTruncated ? res.NextContinuationToken : undefined;
      } while (token);
      return out;
    },
    async remove() {
      for (const key of await bucket.keys().catch(() => [])) await client.send(new DeleteObjectCommand({ Bucket: name, Key: key }));
      await client.send(new DeleteBucketCommand({ Bucket: name })).catch(() => {});
    },
    async recreate() {
      await client.send(new CreateBucketCommand({ Bucket: name }));
    },
  };
  await bucket.recreate();
  return bucket;
}

/** Settings overrides that put a test server's blobs into `bucket` under `prefix`. */
export function s3Overrides(bucket: string, prefix = 'pressroom', endpoint = s3Endpoint!): Partial<Settings> {
  return { blobUrl: `s3://${bucket}/${prefix}`, s3Endpoint: endpoint, s3Region: 'us-east-1', s3ForcePathStyle: true };
}

/** The same as environment variables, for child processes. */
export function s3Env(bucket: string, prefix = 'pressroom', endpoint = s3Endpoint!): Record<string, string> {
  return { PRESSROOM_BLOB_URL: `s3://${bucket}/${prefix}`, PRESSROOM_S3_ENDPOINT: endpoint, PRESSROOM_S3_FORCE_PATH_STYLE: 'true', ...testCredentials };
}

export type BlobKind = 'file' | 's3';

/** Runs a suite once per blob store: files always, S3 when a test endpoint is set (else reported skipped). */
export function describeEachBlobStore(name: string, fn: (kind: BlobKind) => void): void {
  describe(`${name} [file]`, () => fn('file'));
  if (s3Endpoint) describe(`${name} [s3]`, () => fn('s3'));
  else describe(`${name} [s3]`, { skip: S3_SKIP_REASON }, () => {});
}

/** A free loopback port (for a server started after this returns, or for one nothing listens on). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether `moto_server` can be started by a test (for servers with settings of their own). */
export function motoAvailable(): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn('moto_server', ['--help'], { stdio: 'ignore' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
  });
}

/** Starts a moto_server of the test's own (e.g. one that checks credentials) and waits until it answers. */
export async function startMoto(env: Record<string, string> = {}): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const port = await freePort();
  const child: ChildProcess = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], { env: { ...process.env, ...env }, stdio: 'ignore' });
  const endpoint = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const up = await fetch(`${endpoint}/moto-api/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`moto_server did not start on ${endpoint}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    endpoint,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A test server whose blobs are files (the default) or objects in a fresh bucket; closing it removes the bucket. */
export async function startBlobTestServer(
  blobs: BlobKind,
  store: StoreKind,
  overrides: Partial<Settings> = {},
): Promise<{ t: TestServer; bucket: TestBucket | null; close(): Promise<void> }> {
  const bucket = blobs === 's3' ? await createTestBucket() : null;
  const t = await startTestServer(store, { ...(bucket ? s3Overrides(bucket.name) : {}), ...overrides });
  return {
    t,
    bucket,
    async close() {
      await t.close();
      await bucket?.remove();
    },
  };
}
