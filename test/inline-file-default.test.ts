import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadSettings } from '../src/config/settings.js';
import { pdfImageCount, pdfText } from './helpers/pdf.js';
import { tinyPng } from './helpers/png.js';
import { artifactPdf, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { zipOf } from './helpers/zip.js';

// PRESSROOM_INLINE_FILE_MAX_BYTES unset: 128 KiB, except on PostgreSQL with a file blob store,
// where a file above 16 KiB goes into the blob store (docs/blobs.md says why).
const KiB = 1024;
const pg = 'postgres://pressroom@127.0.0.1:5432/pressroom';

describe('the default size of a file kept in its row (PRESSROOM_INLINE_FILE_MAX_BYTES unset)', () => {
  it('is 128 KiB on SQLite, whatever the blob store', () => {
    assert.equal(loadSettings({}).inlineFileMaxBytes, 128 * KiB);
    assert.equal(loadSettings({ PRESSROOM_BLOB_URL: 'file:///srv/blobs' }).inlineFileMaxBytes, 128 * KiB);
    assert.equal(loadSettings({ PRESSROOM_BLOB_URL: 's3://bucket/prefix' }).inlineFileMaxBytes, 128 * KiB);
  });

  it('is 16 KiB on PostgreSQL with files, 128 KiB with S3', () => {
    assert.equal(loadSettings({ PRESSROOM_DATABASE_URL: pg }).inlineFileMaxBytes, 16 * KiB, 'files under the data folder');
    assert.equal(loadSettings({ PRESSROOM_DATABASE_URL: pg, PRESSROOM_BLOB_URL: 'file:///srv/blobs' }).inlineFileMaxBytes, 16 * KiB);
    assert.equal(loadSettings({ PRESSROOM_DATABASE_URL: pg, PRESSROOM_BLOB_URL: 's3://bucket/prefix' }).inlineFileMaxBytes, 128 * KiB);
  });

  it('follows overridden settings, and a value given wins', () => {
    assert.equal(loadSettings({ PRESSROOM_DATABASE_URL: pg }, { blobUrl: 's3://bucket/prefix' }).inlineFileMaxBytes, 128 * KiB);
    assert.equal(loadSettings({}, { databaseUrl: pg }).inlineFileMaxBytes, 16 * KiB);
    assert.equal(loadSettings({ PRESSROOM_DATABASE_URL: pg, PRESSROOM_INLINE_FILE_MAX_BYTES: '131072' }).inlineFileMaxBytes, 128 * KiB);
    assert.equal(loadSettings({ PRESSROOM_DATABASE_URL: pg, PRESSROOM_INLINE_FILE_MAX_BYTES: '0' }).inlineFileMaxBytes, 0);
    assert.equal(loadSettings({ PRESSROOM_DATABASE_URL: pg }, { inlineFileMaxBytes: 4 * KiB }).inlineFileMaxBytes, 4 * KiB);
    assert.equal(loadSettings({ PRESSROOM_INLINE_FILE_MAX_BYTES: '' }).inlineFileMaxBytes, 128 * KiB, 'empty is unset');
  });

  it('refuses a bad value as before, on either database', () => {
    assert.throws(() => loadSettings({ PRESSROOM_DATABASE_URL: pg, PRESSROOM_INLINE_FILE_MAX_BYTES: '-1' }), /PRESSROOM_INLINE_FILE_MAX_BYTES must be an integer from 0 to 4194304, got "-1"/);
  });
});

describeEachStore('a PDF of some 50 KB at the default size limit', (kind) => {
  let t: TestServer;
  let jobs: string;
  let id: string;
  const data = '<data><item id="P-50"><title>Photo sheet</title><price>12.50</price><image>images/photo.png</image></item></data>';

  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 });
    ({ jobs } = await setupProject(t));
    // Noise does not compress: the picture keeps the PDF well above 16 KiB and below 128 KiB.
    const zip = await zipOf({ 'data.xml': data, 'images/photo.png': tinyPng(120, 120, true) });
    [id] = (await submit(t, jobs, zip, { contentType: 'application/zip' })) as [string];
    const status = await waitComplete(t, jobs, id);
    assert.equal(status.status, 'renderpdf.succeeded', JSON.stringify(status));
  });
  after(() => t.close());

  it(kind === 'postgres' ? 'goes into the blob store; its log and content stay in their rows' : 'stays in its row, with its log and content', async () => {
    assert.equal(t.server.ctx.settings.inlineFileMaxBytes, kind === 'postgres' ? 16 * KiB : 128 * KiB);
    const pdf = await artifactPdf(t, jobs, id);
    assert.ok(pdf.length > 16 * KiB && pdf.length < 128 * KiB, `${pdf.length} bytes`);
    assert.match((await pdfText(pdf)).join('\n'), /Photo sheet/);
    assert.equal(await pdfImageCount(pdf, 0), 1);
    const blobs = (await t.server.ctx.blobs.list(`jobs/acme/shop/${id}/`)).map((key) => key.slice(key.lastIndexOf('/') + 1));
    assert.deepEqual(blobs, kind === 'postgres' ? [`a1.${id}.pdf`] : []);
  });
});
