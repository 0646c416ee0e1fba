import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pdfPageCount, pdfText } from './helpers/pdf.js';
import { imageFormat, imageSize } from './helpers/image-size.js';
import { artifactPdf, putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { describeEachBlobStore, startBlobTestServer } from './helpers/s3.js';
import type { TestServer } from './helpers/server.js';
import { readZip } from '../src/zip/index.js';

// A step's files up to PRESSROOM_INLINE_FILE_MAX_BYTES (128 KiB) live in their artifact rows; at 0
// every one is a blob (a file created, or an object PUT). Through the API nothing tells the two
// apart: downloads, ranges, the ZIP, conversion and merging read either.
const grid = '<data><item id="I-1"><title>Kept in the row</title><price>3.20</price></item></data>';
const base = '/rest/tenants/acme/projects/shop';

describeEachBlobStore("a step's small files in their rows", (kind) => {
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

  it('stores no blob for a one-page render and serves its PDF, log and content file whole, by range and in the ZIP', async () => {
    assert.deepEqual(await t.server.ctx.blobs.list(`jobs/acme/shop/${id}/`), [], 'the small XML input is inline too');
    const pdf = await get(`${id}.pdf?shipped=false`);
    assert.equal(pdf.status, 200);
    assert.equal(pdf.headers.get('content-type'), 'application/pdf');
    const pdfBytes = Buffer.from(await pdf.arrayBuffer());
    assert.equal(pdf.headers.get('content-length'), String(pdfBytes.length));
    assert.match((await pdfText(pdfBytes)).join('\n'), /Kept in the row/);
    const head = await get(`${id}.pdf`, { range: 'bytes=0-4' });
    assert.equal(head.status, 206);
    assert.equal(head.headers.get('content-range'), `bytes 0-4/${pdfBytes.length}`);
    assert.equal(await head.text(), '%PDF-');

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

for (const limit of [undefined, 0]) {
  const where = limit === 0 ? 'blobs (PRESSROOM_INLINE_FILE_MAX_BYTES=0)' : 'rows (the default limit)';
  describeEachBlobStore(`conversion and merging read PDFs kept as ${where}`, (kind) => {
    let t: TestServer;
    let close: () => Promise<void>;
    let tokens: { jobs: string; admin: string };
    const attemptFiles = async (id: string) => (await t.server.ctx.blobs.list(`jobs/acme/shop/${id}/`)).map((k) => k.slice(k.lastIndexOf('/') + 1));

    before(async () => {
      ({ t, close } = await startBlobTestServer(kind, 'sqlite', { renderThreads: 1, pollMs: 50, ...(limit === undefined ? {} : { inlineFileMaxBytes: limit }) }));
      tokens = await setupProject(t);
    });
    after(() => close());

    it('converts the stored PDF to a PNG of the A4 page', async () => {
      const [id] = (await submit(t, tokens.jobs, grid, { query: `convert=${encodeURIComponent('format=png;resolution=72')}` })) as [string];
      const s = await waitComplete(t, tokens.jobs, id);
      assert.equal(s.status, 'convert.succeeded', JSON.stringify(s));
      const res = await t.fetch(`${base}/storage/${id}.png`, { token: tokens.jobs, headers: { accept: '*/*' } });
      assert.equal(res.status, 200);
      const png = Buffer.from(await res.arrayBuffer());
      assert.equal(imageFormat(png), 'png');
      assert.deepEqual(imageSize(png), { width: 595, height: 842 });
      assert.deepEqual((await attemptFiles(id)).sort(), limit === 0 ? [`a1.${id}.content.xml`, `a1.${id}.pdf`, `a1.${id}.typst.log`, `a2.${id}.png`] : []);
    });

    it('merges the parts of a fanout into the aggregate', async () => {
      await putFile(t, tokens.admin, 'tenants/acme/projects/shop/restapi/config.ion', '{ fanout: { enabled: true }, aggregate: { enabled: true } }');
      const items = [1, 2, 3].map((i) => `<item type="document" id="I-${i}"><title>Part ${i} title</title><price>${i}.00</price></item>`).join('');
      const res = await t.fetch(`${base}/renderpdf`, { method: 'POST', token: tokens.jobs, body: `<data>${items}</data>`, headers: { 'content-type': 'application/xml' } });
      assert.equal(res.status, 202);
      const body = (await res.json()) as { tickets: { id: string }[]; aggregate: { id: string } };
      const s = await waitComplete(t, tokens.jobs, body.aggregate.id);
      assert.equal(s.status, 'aggregate.succeeded', JSON.stringify(s));
      const pdf = await artifactPdf(t, tokens.jobs, body.aggregate.id);
      assert.equal(await pdfPageCount(pdf), 3);
      const text = (await pdfText(pdf)).join('\n');
      assert.ok(text.indexOf('Part 1 title') >= 0 && text.indexOf('Part 1 title') < text.indexOf('Part 3 title'), text);
      const partFiles = await attemptFiles(body.tickets[0]!.id);
      assert.ok(limit === 0 ? partFiles.includes(`a1.${body.tickets[0]!.id}.pdf`) : !partFiles.some((f) => f.endsWith('.pdf')), partFiles.join(', '));
    });
  });
}
