import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import * as mupdf from 'mupdf';
import { tickets } from '../src/store/index.js';
import { artifactPdf, putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const grid = '<data><item><title>Options</title></item></data>';

describeEachStore('renderpdf options and template sandbox', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 });
    tokens = await setupProject(t);
  });
  after(() => t.close());

  async function renderWith(template: string, source: string) {
    await putFile(t, tokens.admin, `tenants/acme/projects/shop/master-documents/${template}.typ`, source);
    const [id] = await submit(t, tokens.jobs, grid, { query: `documentTemplate=${template}` });
    return { id: id!, status: await waitComplete(t, tokens.jobs, id!) };
  }

  it('keeps templates away from packages, the network and host files', async () => {
    const cases: [string, string, RegExp][] = [
      ['pkg', '#import "@preview/cetz:0.2.2": canvas\nx', /package/],
      ['localpkg', '#import "@local/secret:0.1.0": *\nx', /package/],
      ['abs', '#read("/etc/hostname")', /not found/],
      ['escape', '#read("../../../../etc/hostname")', /denied|outside|not found/],
      ['img', '#image("/etc/passwd")', /not found/],
    ];
    for (const [name, source, message] of cases) {
      const started = Date.now();
      const { status } = await renderWith(name, source);
      assert.equal(status.status, 'renderpdf.failed', `${name}: ${JSON.stringify(status)}`);
      assert.match(status.errorMessage!, message, name);
      // A package fetch that hung would end at the render time limit with another message.
      assert.ok(Date.now() - started < 60_000, `${name} failed fast`);
    }
  });

  it('writes PDF/A-2b when renderpdf/config.ion asks for it', async () => {
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/renderpdf/config.ion', '{ pdfStandard: "a-2b" }');
    try {
      const [id] = await submit(t, tokens.jobs, grid);
      const s = await waitComplete(t, tokens.jobs, id!);
      assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
      const pdf = await artifactPdf(t, tokens.jobs, id!);
      const doc = mupdf.Document.openDocument(pdf, 'application/pdf') as mupdf.PDFDocument;
      const xmp = doc.getTrailer().get('Root').get('Metadata');
      assert.ok(xmp.isStream(), 'XMP metadata present');
      const text = xmp.readStream().asString();
      assert.match(text, /pdfaid:part[^0-9]*2/);
      assert.match(text, /pdfaid:conformance[^A-Z]*B/);
    } finally {
      await t.fetch('/rest/repository/files/tenants/acme/projects/shop/renderpdf/config.ion', { method: 'DELETE', token: tokens.admin });
    }
  });

  it('stores small input inline and large input as a blob, per inputBufferSize', async () => {
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/restapi/config.ion', '{ inputBufferSize: 65536, keepInputForSeconds: 120 }');
    try {
      const [small] = await submit(t, tokens.jobs, grid);
      const bigItems = Array.from({ length: 2000 }, (_, i) => `<item><title>Row ${i} with some padding text</title></item>`).join('');
      const [big] = await submit(t, tokens.jobs, `<data>${bigItems}</data>`);
      const db = t.server.ctx.db.kysely;
      const s = (await tickets.findTicket(db, small!))!;
      const b = (await tickets.findTicket(db, big!))!;
      assert.ok(s.input_inline && !s.input_key, 'small input inline');
      assert.ok(!b.input_inline && b.input_key, 'large input in blob storage');
      assert.ok(await t.server.ctx.blobs.size(b.input_key!));
      assert.ok(Math.abs(s.keep_input_until! - s.created - 120_000) < 1000);
      assert.equal((await waitComplete(t, tokens.jobs, big!)).status, 'renderpdf.succeeded');
      assert.equal((await waitComplete(t, tokens.jobs, small!)).status, 'renderpdf.succeeded');
    } finally {
      await t.fetch('/rest/repository/files/tenants/acme/projects/shop/restapi/config.ion', { method: 'DELETE', token: tokens.admin });
    }
  });
});
