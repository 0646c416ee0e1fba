import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import pino from 'pino';
import { InvalidSettingsError, loadSettings, type Settings } from '../src/config/settings.js';
import { tickets } from '../src/store/index.js';
import { artifactPdf, putFile, setupProject, submit, waitComplete, type Status } from './helpers/project.js';
import { createTestBucket, freePort, motoAvailable, s3Endpoint, s3Overrides, S3_SKIP_REASON, startMoto, type TestBucket } from './helpers/s3.js';
import { startTestServer, type TestServer } from './helpers/server.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A logger whose lines the test can read. */
function capturingLogger() {
  const lines: { level: number; msg: string; [k: string]: unknown }[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  return { logger, lines };
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function readyz(t: TestServer): Promise<{ status: number; body: { status: string; reason?: string } }> {
  const res = await fetch(`${t.url}/readyz`);
  return { status: res.status, body: (await res.json()) as { status: string; reason?: string } };
}

describe('S3 settings refused at start', () => {
  it('names the problem of each bad S3 setting, all at once', () => {
    const cases: [Record<string, string>, RegExp][] = [
      [{ PRESSROOM_BLOB_URL: 's3://' }, /PRESSROOM_BLOB_URL s3:\/\/ names no bucket: use s3:\/\/<bucket>\/<prefix>/],
      [{ PRESSROOM_BLOB_URL: 's3:///prefix' }, /names no bucket/],
      [{ PRESSROOM_BLOB_URL: 's3://Bad_Bucket/x' }, /bucket "Bad_Bucket" is not a valid bucket name/],
      [{ PRESSROOM_BLOB_URL: 's3://bucket/a/../b' }, /prefix "a\/..\/b" is not allowed/],
      [{ PRESSROOM_BLOB_URL: 'gs://bucket/x' }, /must be a file:\/\/ or s3:\/\/<bucket>\/<prefix> URL/],
      [{ PRESSROOM_S3_FORCE_PATH_STYLE: 'yes' }, /PRESSROOM_S3_FORCE_PATH_STYLE must be true or false, got "yes"/],
      [{ PRESSROOM_S3_ENDPOINT: 'minio:9000' }, /PRESSROOM_S3_ENDPOINT must be an http:\/\/ or https:\/\/ URL/],
      [{ PRESSROOM_S3_REGION: 'EU Central' }, /PRESSROOM_S3_REGION must be a region name/],
    ];
    for (const [env, message] of cases) {
      assert.throws(() => loadSettings(env), (err: unknown) => err instanceof InvalidSettingsError && message.test(err.message), JSON.stringify(env));
    }
    const both = (() => {
      try {
        loadSettings({ PRESSROOM_BLOB_URL: 's3://', PRESSROOM_S3_FORCE_PATH_STYLE: 'on' });
      } catch (err) {
        return (err as InvalidSettingsError).problems;
      }
    })();
    assert.equal(both?.length, 2);
    const ok = loadSettings({ PRESSROOM_BLOB_URL: 's3://my-bucket/pressroom/prod/', PRESSROOM_S3_FORCE_PATH_STYLE: 'true', PRESSROOM_S3_ENDPOINT: 'http://127.0.0.1:9000' });
    assert.equal(ok.s3ForcePathStyle, true);
    assert.equal(ok.s3Region, 'us-east-1');
  });

  it('`serve` with s3:// and no bucket exits 2 with the reason, before touching anything', async () => {
    const env: Record<string, string> = { PATH: process.env.PATH ?? '', PRESSROOM_BLOB_URL: 's3://', PRESSROOM_DATA: '/nonexistent/never-created', PRESSROOM_LOG_LEVEL: 'silent' };
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], { cwd: root, env });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 2);
    assert.match(stderr, /^invalid settings:\n {2}PRESSROOM_BLOB_URL s3:\/\/ names no bucket/);
  });
});

describe('an S3 store that cannot be used at start', () => {
  /** Starts a server on `overrides`; it must come up, log the reason once and report it on /readyz. */
  async function startsNotReady(overrides: Partial<Settings>, reason: RegExp): Promise<{ t: TestServer; lines: ReturnType<typeof capturingLogger>['lines'] }> {
    const { logger, lines } = capturingLogger();
    const t = await startTestServer('sqlite', { pollMs: 50, ...overrides }, { logger });
    const probe = await readyz(t);
    assert.equal(probe.status, 503);
    assert.equal(probe.body.status, 'unavailable');
    assert.match(probe.body.reason ?? '', reason);
    assert.equal((await fetch(`${t.url}/healthz`)).status, 200, 'alive: no crash loop');
    const errors = lines.filter((l) => l.level === 50);
    assert.equal(errors.length, 1, JSON.stringify(errors));
    assert.match(errors[0]!.msg, reason);
    assert.match(errors[0]!.msg, /not ready until the blob store can be used/);
    assert.doesNotMatch(JSON.stringify(lines), /pressroom-test-secret/, 'no credential in any log line');
    return { t, lines };
  }

  it('an unreachable endpoint: the process stays up, /readyz says why, workers wait, blob requests get 503', async () => {
    const port = await freePort();
    const { t, lines } = await startsNotReady(
      { blobUrl: 's3://pressroom-nowhere/p', s3Endpoint: `http://127.0.0.1:${port}`, s3ForcePathStyle: true },
      new RegExp(`blob store unavailable: endpoint http://127\\.0\\.0\\.1:${port} not reachable \\(ECONNREFUSED\\)`),
    );
    try {
      const { jobs } = await setupProject(t);
      const [id] = await submit(t, jobs, '<data><item><title>small, kept inline</title></item></data>');
      // The worker checks the store again every few seconds; after its next failed check it still has claimed nothing.
      const waits = () => lines.filter((l) => l.msg === 'worker waits for the blob store').length;
      const before = waits();
      await until('another failed check by the worker', async () => (waits() > before ? true : undefined));
      const row = (await tickets.findTicket(t.server.ctx.db.kysely, id!))!;
      assert.equal(row.attempt, 0, 'no ticket claimed while the store cannot be used');
      assert.equal(row.next, 'renderpdf');
      // Input too large to keep inline needs the store: 503 with the reason, no ticket.
      const big = `<data>${'<item><title>padding padding padding</title></item>'.repeat(3000)}</data>`;
      const res = await t.fetch('/rest/tenants/acme/projects/shop/renderpdf', { method: 'POST', token: jobs, body: big, headers: { 'content-type': 'application/xml' } });
      assert.equal(res.status, 503);
      const body = (await res.json()) as { message: string };
      assert.match(body.message, /blob store unavailable: endpoint .* not reachable \(ECONNREFUSED\)/);
      const open = (await (await t.fetch('/rest/tenants/acme/projects/shop/tickets', { token: jobs })).json()) as string[];
      assert.deepEqual(open, [id]);
    } finally {
      await t.close();
    }
  });

  it('wrong credentials: /readyz names them, never the secret', async (ctx) => {
    if (!(await motoAvailable())) return ctx.skip('moto_server is not on the PATH');
    // A moto of this test's own that checks every request's credentials.
    const moto = await startMoto({ INITIAL_NO_AUTH_ACTION_COUNT: '0' });
    try {
      const { t } = await startsNotReady(
        { blobUrl: 's3://pressroom-locked/p', s3Endpoint: moto.endpoint, s3ForcePathStyle: true },
        /blob store unavailable: http:\/\/127\.0\.0\.1:\d+ refused the credentials \(InvalidAccessKeyId\): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/,
      );
      await t.close();
    } finally {
      await moto.stop();
    }
  });

  it('a bucket that does not exist', { skip: s3Endpoint ? false : S3_SKIP_REASON }, async () => {
    const { t } = await startsNotReady({ ...s3Overrides('pr-test-never-created') }, /blob store unavailable: bucket pr-test-never-created does not exist at http:\/\/127\.0\.0\.1:\d+/);
    await t.close();
  });
});

describe('a bucket that disappears while running', { skip: s3Endpoint ? false : S3_SKIP_REASON }, () => {
  let t: TestServer;
  let bucket: TestBucket;
  let jobs: string;
  let brief: string;
  const grid = '<data><item><title>Survives the outage</title></item></data>';
  before(async () => {
    bucket = await createTestBucket();
    // Outputs as objects (PRESSROOM_INLINE_FILE_MAX_BYTES=0): with its small PDF in a row and its
    // XML input inline, a render would not touch the bucket at all.
    t = await startTestServer('sqlite', { ...s3Overrides(bucket.name), renderThreads: 1, pollMs: 50, inlineFileMaxBytes: 0 });
    const tokens = await setupProject(t);
    jobs = tokens.jobs;
    brief = (await setupProject(t, 'acme', 'brief')).jobs;
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/renderpdf/config.ion', '{ redeliverOnError: [ { codePattern: "503", maxRedeliveries: 100, redeliverIntervalMillis: 200 } ] }');
    await putFile(t, tokens.op, 'tenants/acme/projects/brief/renderpdf/config.ion', '{ redeliverOnError: [ { codePattern: "503", maxRedeliveries: 1, redeliverIntervalMillis: 200 } ] }');
    // One render each while the bucket is there (the worker keeps the parsed configuration).
    for (const [token, project] of [[jobs, 'shop'], [brief, 'brief']] as const) {
      const [id] = await submit(t, token, grid, { project });
      assert.equal((await waitComplete(t, token, id!, 30_000, 'acme', project)).status, 'renderpdf.succeeded');
    }
  });
  after(async () => {
    await t.close();
    await bucket.remove();
  });

  const status = async (token: string, id: string, project = 'shop') => (await (await t.fetch(`/rest/tenants/acme/projects/${project}/tickets/${id}/status`, { token })).json()) as Status;

  it('fails steps with errorCode 503 and a readable message, redelivers per the rules, completes once the bucket is back', async () => {
    await bucket.remove();
    const gone = await until('/readyz to notice', async () => {
      const r = await readyz(t);
      return r.status === 503 ? r.body.reason : undefined;
    });
    assert.match(gone!, new RegExp(`bucket ${bucket.name} does not exist`));

    const [waiting] = await submit(t, jobs, grid);
    const [givesUp] = await submit(t, brief, grid, { project: 'brief' });
    const failing = await until('a redelivered 503', async () => {
      const s = await status(jobs, waiting!);
      return s.redeliveries >= 1 && s.errorCode === '503' ? s : undefined;
    });
    assert.equal(failing.complete, false, 'nothing complete before its object exists');
    assert.equal(failing.next, 'renderpdf');
    assert.equal(failing.status, 'renderpdf.failed');
    assert.match(failing.errorMessage ?? '', new RegExp(`blob store unavailable: bucket ${bucket.name} does not exist`));

    const final = await waitComplete(t, brief, givesUp!, 30_000, 'acme', 'brief');
    assert.equal(final.status, 'renderpdf.failed');
    assert.equal(final.errorCode, '503');
    assert.equal(final.redeliveries, 1, 'maxRedeliveries: 1');
    assert.match(final.errorMessage ?? '', /does not exist/);
    const res = await t.fetch(`/rest/tenants/acme/projects/brief/tickets/${givesUp}/artifact`, { token: brief, headers: { accept: 'application/pdf' } });
    assert.equal(res.status, 404, 'a failed ticket has no output');

    await bucket.recreate();
    const done = await waitComplete(t, jobs, waiting!);
    assert.equal(done.status, 'renderpdf.succeeded', JSON.stringify(done));
    const key = (await bucket.keys()).find((k) => k.endsWith(`.${waiting}.pdf`));
    assert.ok(key, 'the output object exists');
    const stored = Buffer.from(await (await bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: key }))).Body!.transformToByteArray());
    assert.ok(stored.equals(await artifactPdf(t, jobs, waiting!)));
    await until('/readyz to recover', async () => ((await readyz(t)).status === 200 ? true : undefined));
  });
});
