import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { pdfText } from './helpers/pdf.js';
import { setupProject, submit, waitComplete } from './helpers/project.js';
import { describeEachBlobStore, startBlobTestServer, type TestBucket } from './helpers/s3.js';
import type { TestServer } from './helpers/server.js';

const grid = '<data><item id="R-1"><title>Range request</title><price>12.50</price></item></data>';
const base = '/rest/tenants/acme/projects/shop';

describeEachBlobStore('storage downloads with Range', (kind) => {
  let t: TestServer;
  let bucket: TestBucket | null;
  let close: () => Promise<void>;
  let jobs: string;
  let id: string;
  let whole: Buffer;

  const get = (name: string, headers: Record<string, string> = {}, method = 'GET') => t.fetch(`${base}/storage/${name}`, { token: jobs, headers: { accept: '*/*', ...headers }, method });
  const shipped = async (ticket: string) => ((await (await t.fetch(`${base}/tickets/${ticket}/status`, { token: jobs })).json()) as { shipped: boolean }).shipped;
  async function waitShipped(ticket: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!(await shipped(ticket))) {
      if (Date.now() > deadline) throw new Error(`ticket ${ticket} never marked shipped`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  before(async () => {
    // The PDF as a blob (PRESSROOM_INLINE_FILE_MAX_BYTES=0): ranges read from the file or the bucket; test/artifacts-in-row covers ranges of a row.
    ({ t, bucket, close } = await startBlobTestServer(kind, 'sqlite', { renderThreads: 1, pollMs: 50, inlineFileMaxBytes: 0 }));
    ({ jobs } = await setupProject(t));
    [id] = (await submit(t, jobs, grid)) as [string];
    const s = await waitComplete(t, jobs, id);
    assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
    const res = await get(`${id}.pdf?shipped=false`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('accept-ranges'), 'bytes');
    whole = Buffer.from(await res.arrayBuffer());
    assert.equal(res.headers.get('content-length'), String(whole.length));
    assert.match((await pdfText(whole)).join('\n'), /Range request/);
  });
  after(() => close());

  it('answers one range with 206, exactly those bytes and Content-Range', async () => {
    const len = whole.length;
    const cases: [string, number, number][] = [
      ['bytes=0-9', 0, 9],
      ['bytes=100-', 100, len - 1],
      ['bytes=-50', len - 50, len - 1],
      ['bytes=5-99999999', 5, len - 1],
      [`bytes=${len - 1}-${len - 1}`, len - 1, len - 1],
      ['bytes=-99999999', 0, len - 1],
    ];
    for (const [range, start, end] of cases) {
      const res = await get(`${id}.pdf`, { range });
      assert.equal(res.status, 206, range);
      assert.equal(res.headers.get('content-range'), `bytes ${start}-${end}/${len}`, range);
      assert.equal(res.headers.get('accept-ranges'), 'bytes', range);
      assert.equal(res.headers.get('content-type'), 'application/pdf', range);
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(res.headers.get('content-length'), String(end - start + 1), range);
      assert.ok(body.equals(whole.subarray(start, end + 1)), `${range}: exact bytes`);
    }
  });

  it('answers 416 with the length for a range past the end', async () => {
    for (const range of [`bytes=${whole.length}-`, `bytes=${whole.length + 10}-${whole.length + 20}`, 'bytes=-0']) {
      const res = await get(`${id}.pdf`, { range });
      assert.equal(res.status, 416, range);
      assert.equal(res.headers.get('content-range'), `bytes */${whole.length}`);
      const body = (await res.json()) as { status: number; message: string };
      assert.equal(body.status, 416);
      assert.match(body.message, /names no byte/);
    }
  });

  it('sends the whole file for ranges it does not serve (several, malformed, other units)', async () => {
    for (const range of ['bytes=0-1,4-5', 'bytes=9-2', 'items=0-1', 'bytes=a-b', 'bytes=-']) {
      const res = await get(`${id}.pdf?shipped=false`, { range });
      assert.equal(res.status, 200, range);
      assert.equal(res.headers.get('content-range'), null);
      assert.ok(Buffer.from(await res.arrayBuffer()).equals(whole), range);
    }
  });

  it('never marks the output shipped for a part or a HEAD; a full download does', async () => {
    const [fresh, other] = (await submit(t, jobs, grid)).concat(await submit(t, jobs, grid)) as [string, string];
    await waitComplete(t, jobs, fresh);
    await waitComplete(t, jobs, other);
    const len = Number((await get(`${fresh}.pdf`, {}, 'HEAD')).headers.get('content-length'));
    for (const range of ['bytes=0-99', `bytes=-${len - 1}`, 'bytes=1-']) {
      const res = await get(`${fresh}.pdf`, { range });
      assert.equal(res.status, 206);
      assert.equal((await res.arrayBuffer()).byteLength < len, true);
    }
    // The other ticket's full download is marked after these requests; once it shows, theirs would too.
    await (await get(`${other}.pdf`)).arrayBuffer();
    await waitShipped(other);
    assert.equal(await shipped(fresh), false, 'partial downloads and HEAD leave it unshipped');
    // A range that happens to cover every byte is a complete download.
    const res = await get(`${fresh}.pdf`, { range: 'bytes=0-' });
    assert.equal(res.status, 206);
    await res.arrayBuffer();
    await waitShipped(fresh);
  });

  if (kind === 's3') {
    it('keeps the PDF in the bucket under the prefix, byte for byte', async () => {
      const keys = await bucket!.keys();
      assert.ok(keys.length > 0);
      assert.deepEqual(keys.filter((k) => !k.startsWith('pressroom/')), [], 'every key under the prefix');
      const key = keys.find((k) => k.endsWith(`.${id}.pdf`));
      assert.ok(key, keys.join(', '));
      assert.match(key, new RegExp(`^pressroom/jobs/acme/shop/${id}/a\\d+\\.${id}\\.pdf$`));
      const obj = await bucket!.client.send(new GetObjectCommand({ Bucket: bucket!.name, Key: key }));
      assert.ok(Buffer.from(await obj.Body!.transformToByteArray()).equals(whole));
    });
  }
});
