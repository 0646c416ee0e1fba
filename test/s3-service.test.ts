import assert from 'node:assert/strict';
import { describe, after, before, it } from 'node:test';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { tickets } from '../src/store/index.js';
import { runHousekeeping } from '../src/tickets/retention/index.js';
import { readZip } from '../src/zip/index.js';
import { pdfImageCount, pdfText } from './helpers/pdf.js';
import { tinyPng } from './helpers/png.js';
import { artifactPdf, putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startReceiver, type Receiver } from './helpers/receiver.js';
import { s3Endpoint, S3_SKIP_REASON, startBlobTestServer, type TestBucket } from './helpers/s3.js';
import type { TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { zipOf } from './helpers/zip.js';

const P = 'tenants/acme/projects/shop';
const grid = '<data><item id="S-1"><title>Stored in a bucket</title></item></data>';

// The service end to end with its blobs in S3 (moto): inputs, outputs, logs, repository files,
// webhook uploads and housekeeping. The rest of the suite covers the same paths on files.
describeEachStore('the service on S3 blobs', (kind) => {
  if (!s3Endpoint) {
    describe('skipped', { skip: S3_SKIP_REASON }, () => {});
    return;
  }
  let t: TestServer;
  let bucket: TestBucket;
  let close: () => Promise<void>;
  let tokens: { op: string; jobs: string; admin: string };
  let r: Receiver;
  before(async () => {
    // A row limit of 2 KiB (PRESSROOM_INLINE_FILE_MAX_BYTES): the large render below keeps its log in a row, its PDF and content file in the bucket.
    const started = await startBlobTestServer('s3', kind, { renderThreads: 1, pollMs: 50, allowPrivateAddresses: ['127.0.0.1'], inlineFileMaxBytes: 2048 });
    ({ t, close } = started);
    bucket = started.bucket!;
    tokens = await setupProject(t);
    r = await startReceiver();
  });
  after(async () => {
    await r.close();
    await close();
  });

  const object = async (key: string) => Buffer.from(await (await bucket.client.send(new GetObjectCommand({ Bucket: bucket.name, Key: `pressroom/${key}` }))).Body!.transformToByteArray());

  it('renders input stored in the bucket with a template from the repository in the bucket', async () => {
    await putFile(t, tokens.admin, `${P}/master-documents/bucket.typ`, '#let d = xml("/data.xml").at(0)\nFROM-THE-BUCKET #d.children.len() items\n');
    const row = await t.server.ctx.db.kysely.selectFrom('repo_files').selectAll().where('path', '=', `${P}/master-documents/bucket.typ`).executeTakeFirstOrThrow();
    assert.match((await object(row.blob_key)).toString(), /FROM-THE-BUCKET/, 'the repository file is an object');
    const items = Array.from({ length: 1500 }, (_, i) => `<item><title>Row ${i} padded to make the input large</title></item>`).join('');
    const [id] = await submit(t, tokens.jobs, `<data>${items}</data>`, { query: 'documentTemplate=bucket' });
    const stored = (await tickets.findTicket(t.server.ctx.db.kysely, id!))!;
    assert.ok(stored.input_key && !stored.input_inline, 'input above inputBufferSize is a blob');
    assert.match((await object(stored.input_key)).toString(), /^<data><item>/);
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
    const pdf = await artifactPdf(t, tokens.jobs, id!);
    assert.match((await pdfText(pdf)).join('\n'), /FROM-THE-BUCKET 1500 items/);
    const keys = await bucket.keys();
    const pdfKey = keys.find((k) => k.endsWith(`.${id}.pdf`))!;
    assert.ok((await object(pdfKey.slice('pressroom/'.length))).equals(pdf), 'the bucket holds the very bytes served');
    assert.ok(!keys.some((k) => k.endsWith(`.${id}.typst.log`)), 'the small render log is kept in its row, no object');
    assert.ok(keys.some((k) => k.endsWith(`.${id}.content.xml`)), 'the content file, above the row limit, is an object');
    assert.deepEqual(keys.filter((k) => !k.startsWith('pressroom/')), []);
    // All files of the ticket as one ZIP, streamed entry by entry out of the bucket.
    const zipRes = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/artifact`, { token: tokens.jobs, headers: { accept: 'application/zip' } });
    assert.equal(zipRes.status, 200);
    const entries = await readZip(Buffer.from(await zipRes.arrayBuffer()), { maxEntries: 10, maxBytes: 1e8 });
    assert.deepEqual(entries.map((e) => e.name).sort(), [`${id}.content.xml`, `${id}.pdf`, `${id}.typst.log`]);
    const inZip = entries.find((e) => e.name === `${id}.pdf`);
    assert.ok(inZip?.kind === 'file' && inZip.data.equals(pdf));
  });

  it('renders a ZIP input whose image comes out of the bucket', async () => {
    const body = await zipOf({ 'data.xml': '<data><item><title>Zipped</title><image>images/p.png</image></item></data>', 'images/p.png': tinyPng(32, 24) });
    const [id] = await submit(t, tokens.jobs, body, { contentType: 'application/zip' });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
    const pdf = await artifactPdf(t, tokens.jobs, id!);
    assert.ok((await pdfImageCount(pdf, 0)) >= 1);
  });

  it('uploads the output from the bucket to a webhook byte for byte, and answers synchronously', async () => {
    r.requests.length = 0;
    await putFile(t, tokens.admin, `${P}/upload/config.ion`, '{}');
    const [id] = await submit(t, tokens.jobs, grid, { query: new URLSearchParams({ upload: `${r.url}/up/{ticket}.pdf` }).toString() });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'upload.succeeded', JSON.stringify(s));
    const [up] = await r.waitFor(1);
    assert.ok(up!.body.equals(await artifactPdf(t, tokens.jobs, id!)));
    const res = await t.fetch(`/rest/tenants/acme/projects/shop/renderpdf?timeToWait=20000`, { method: 'POST', token: tokens.jobs, body: grid, headers: { 'content-type': 'application/xml', accept: 'application/pdf' } });
    assert.equal(res.status, 200);
    assert.match((await pdfText(Buffer.from(await res.arrayBuffer()))).join('\n'), /Stored in a bucket/);
  });

  it('deletes a repository file’s object with the file, and shipped outputs in housekeeping', async () => {
    await putFile(t, tokens.admin, `${P}/notes/only-here.txt`, 'unique content 7f3a');
    const row = await t.server.ctx.db.kysely.selectFrom('repo_files').selectAll().where('path', '=', `${P}/notes/only-here.txt`).executeTakeFirstOrThrow();
    assert.ok((await bucket.keys()).includes(`pressroom/${row.blob_key}`));
    assert.equal((await t.fetch(`/rest/repository/files/${P}/notes/only-here.txt`, { method: 'DELETE', token: tokens.admin })).status, 200);
    assert.ok(!(await bucket.keys()).includes(`pressroom/${row.blob_key}`), 'the object went with its last file');

    await putFile(t, tokens.admin, `${P}/renderpdf/config.ion`, '{ keepOutputUntil: "shipped" }');
    const [id] = await submit(t, tokens.jobs, grid);
    await waitComplete(t, tokens.jobs, id!);
    const res = await t.fetch(`/rest/tenants/acme/projects/shop/storage/${id}.pdf`, { token: tokens.jobs, headers: { accept: '*/*' } });
    await res.arrayBuffer();
    const deadline = Date.now() + 10_000;
    while (!(await tickets.findTicket(t.server.ctx.db.kysely, id!))!.shipped) {
      assert.ok(Date.now() < deadline, 'shipped');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok((await bucket.keys()).some((k) => k.endsWith(`.${id}.pdf`)), 'the output is an object');
    await runHousekeeping(t.server.ctx);
    assert.ok(!(await bucket.keys()).some((k) => k.endsWith(`.${id}.pdf`)), 'the shipped output is gone from the bucket');
  });
});
