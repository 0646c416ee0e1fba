import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pdfText } from './helpers/pdf.js';
import { setupProject, submit, waitComplete } from './helpers/project.js';
import { describeEachBlobStore, startBlobTestServer } from './helpers/s3.js';
import type { TestServer } from './helpers/server.js';
import { readZip } from '../src/zip/index.js';

// A render's log and content file are small: they live in their artifact rows, and only the PDF
// is a blob (a file created, or an object PUT). Through the API nothing tells the two apart.
const grid = '<data><item id="I-1"><title>Kept in the row</title><price>3.20</price></item></data>';
const base = '/rest/tenants/acme/projects/shop';

describeEachBlobStore('small logs and content files in their rows', (kind) => {
  let t: TestServer;
  let close: () => Promise<void>;
  let jobs: string;
  let id: string;
  const get = (name: string, headers: Record<string, string> = {}) => t.fetch(`${base}/storage/${name}`, { token: jobs, headers: { accept: '*/*', ...headers } });

  before(async () => {
    ({ t, close } = await startBlobTestServer(kind, 'sqlite', { renderThreads: 1, pollMs: 50 }));
    ({ jobs } = await setupProject(t));
    [id] = (await submit(t, jobs, grid)) as [string];
    const s = await waitComplete(t, jobs, id);
    assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
  });
  after(() => close());

  it('stores only the PDF as a blob and serves the log and content file whole, by range and in the ZIP', async () => {
    assert.deepEqual(await t.server.ctx.blobs.list(`jobs/acme/shop/${id}/`), [`jobs/acme/shop/${id}/a1.${id}.pdf`], 'the small XML input is inline too');

    const content = await get(`${id}.content.xml?shipped=false`);
    assert.equal(content.status, 200);
    assert.equal(content.headers.get('content-type'), 'application/octet-stream', 'the contract: octet-stream for every extension but pdf');
    assert.equal(content.headers.get('content-length'), String(Buffer.byteLength(grid)));
    assert.equal(await content.text(), grid);

    const part = await get(`${id}.content.xml`, { range: 'bytes=6-11' });
    assert.equal(part.status, 206);
    assert.equal(part.headers.get('content-range'), `bytes 6-11/${Buffer.byteLength(grid)}`);
    assert.equal(await part.text(), grid.slice(6, 12));
    const tail = await get(`${id}.content.xml`, { range: 'bytes=-7' });
    assert.equal(tail.status, 206);
    assert.equal(await tail.text(), '</data>');

    const logRes = await get(`${id}.typst.log?shipped=false`);
    assert.equal(logRes.status, 200);
    const log = await logRes.text();
    assert.match(log, new RegExp(`ticket ${id} tenant acme project shop attempt 1`));
    assert.match(log, /rendered 1 page\(s\)/);

    const zipRes = await t.fetch(`${base}/tickets/${id}/artifact`, { token: jobs, headers: { accept: 'application/zip' } });
    assert.equal(zipRes.status, 200);
    const entries = new Map((await readZip(Buffer.from(await zipRes.arrayBuffer()), { maxEntries: 10, maxBytes: 1e8 })).flatMap((e) => (e.kind === 'file' ? [[e.name, e.data] as const] : [])));
    assert.deepEqual([...entries.keys()].sort(), [`${id}.content.xml`, `${id}.pdf`, `${id}.typst.log`]);
    assert.equal(entries.get(`${id}.content.xml`)?.toString(), grid);
    assert.equal(entries.get(`${id}.typst.log`)?.toString(), log);
    assert.match((await pdfText(entries.get(`${id}.pdf`)!)).join('\n'), /Kept in the row/);
  });
});
