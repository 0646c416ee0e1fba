import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pdfImageCount, pdfPageCount, pdfText } from './helpers/pdf.js';
import { artifactPdf, putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { tinyPng } from './helpers/png.js';
import { zipOf } from './helpers/zip.js';

const grid = `<data><item id="A-1"><title>Espresso machine</title><price>249.90</price><tags><tag>kitchen</tag><tag>coffee</tag></tags></item></data>`;

describeEachStore('renderpdf', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  before(async () => {
    // The default render limit (60 s): a loaded machine renders a long document slowly. The
    // test of the limit sets a short one for its own project.
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 });
    tokens = await setupProject(t);
  });
  after(() => t.close());

  it('renders grid XML asynchronously to a PDF that contains the data', async () => {
    const [id] = await submit(t, tokens.jobs, grid, { query: 'foreignKey=order-7' });
    assert.match(id!, /^[0-9A-Z]{26}$/);
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
    assert.equal(s.next, null);
    assert.ok(s.processingPages >= 1);
    const pdf = await artifactPdf(t, tokens.jobs, id!);
    const text = (await pdfText(pdf)).join('\n');
    assert.match(text, /Espresso machine/);
    assert.match(text, /249\.90/);
    assert.match(text, /coffee/);
    // The open list no longer has it; the ZIP artifact holds the PDF, content XML and log.
    const open = (await (await t.fetch('/rest/tenants/acme/projects/shop/tickets', { token: tokens.jobs })).json()) as string[];
    assert.ok(!open.includes(id!));
    const zipRes = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/artifact`, { token: tokens.jobs, headers: { accept: 'application/zip' } });
    assert.equal(zipRes.status, 200);
    const { readZip } = await import('../src/zip/index.js');
    const names = (await readZip(Buffer.from(await zipRes.arrayBuffer()), { maxEntries: 100, maxBytes: 1e8 })).map((e) => e.name).sort();
    assert.deepEqual(names, [`${id}.content.xml`, `${id}.pdf`, `${id}.typst.log`]);
  });

  it('answers synchronously with the PDF, and marks it shipped', async () => {
    const res = await t.fetch('/rest/tenants/acme/projects/shop/renderpdf?timeToWait=300000', {
      method: 'POST',
      token: tokens.jobs,
      body: grid,
      headers: { 'content-type': 'application/xml', accept: 'application/pdf' },
    });
    assert.equal(res.status, 200, res.status === 200 ? '' : await res.text());
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    const pdf = Buffer.from(await res.arrayBuffer());
    assert.equal(pdf.subarray(0, 5).toString(), '%PDF-');
    assert.match((await pdfText(pdf)).join('\n'), /Espresso machine/);
  });

  it('downloads through storage and marks the ticket shipped', async () => {
    const [id] = await submit(t, tokens.jobs, grid);
    await waitComplete(t, tokens.jobs, id!);
    const res = await t.fetch(`/rest/tenants/acme/projects/shop/storage/${id}.pdf`, { token: tokens.jobs });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/pdf');
    await res.arrayBuffer();
    // Marked once the download has completed, just after the response ends.
    const shipped = async () => ((await (await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/status`, { token: tokens.jobs })).json()) as { shipped: boolean }).shipped;
    const deadline = Date.now() + 30_000;
    while (!(await shipped())) {
      assert.ok(Date.now() < deadline, 'never marked shipped');
      await new Promise((r) => setTimeout(r, 20));
    }
  });

  it('renders a ZIP with an image that appears in the PDF', async () => {
    const body = await zipOf({
      'data.xml': '<data><item><title>With picture</title><image>images/photo.png</image></item></data>',
      'images/photo.png': tinyPng(64, 48),
    });
    const [id] = await submit(t, tokens.jobs, body, { contentType: 'application/zip' });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
    const pdf = await artifactPdf(t, tokens.jobs, id!);
    assert.match((await pdfText(pdf)).join('\n'), /With picture/);
    assert.ok((await pdfImageCount(pdf, 0)) >= 1, 'image on page 1');
  });

  it('uses a repository template over the built-in, with sys.inputs and custom parameters', async () => {
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/label.typ', '#import "parts/head.typ": head\n#let d = xml("/data.xml").at(0)\n#head\nLABEL #d.children.at(0).children.at(0).children.at(0) for #sys.inputs.tenant / #sys.inputs.at("custom.color")\n');
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/parts/head.typ', '#let head = [HEADER-PART]\n');
    const [id] = await submit(t, tokens.jobs, grid, { query: 'documentTemplate=label&custom=color:teal' });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
    const text = (await pdfText(await artifactPdf(t, tokens.jobs, id!))).join('\n');
    assert.match(text, /HEADER-PART/);
    assert.match(text, /LABEL Espresso machine for acme \/ teal/);
  });

  it('resolves documentTemplate through global, tenant, project config and profiles in order', async () => {
    for (const name of ['g', 't', 'p', 'x', 'y']) {
      await putFile(t, tokens.op, `master-documents/tpl-${name}.typ`, `TEMPLATE-${name.toUpperCase()}\n`);
    }
    const cfg = (name: string) => `{ documentTemplate: "tpl-${name}" }`;
    await putFile(t, tokens.op, 'restapi/config.ion', cfg('g'));
    const render = async (query = '') => {
      const [id] = await submit(t, tokens.jobs, grid, { query });
      const s = await waitComplete(t, tokens.jobs, id!);
      assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
      return (await pdfText(await artifactPdf(t, tokens.jobs, id!))).join('');
    };
    assert.match(await render(), /TEMPLATE-G/);
    await putFile(t, tokens.op, 'tenants/acme/restapi/config.ion', cfg('t'));
    assert.match(await render(), /TEMPLATE-T/);
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/restapi/config.ion', cfg('p'));
    assert.match(await render(), /TEMPLATE-P/);
    await putFile(t, tokens.op, 'restapi/config-one.ion', cfg('x'));
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/restapi/config-two.ion', cfg('y'));
    assert.match(await render('profile=one'), /TEMPLATE-X/);
    assert.match(await render('profile=one,two'), /TEMPLATE-Y/);
    assert.match(await render('profile=two,one'), /TEMPLATE-X/);
    assert.match(await render('profile=one&documentTemplate=tpl-g'), /TEMPLATE-G/);
    // Clean up so later tests use the built-in default again.
    for (const p of ['restapi/config.ion', 'tenants/acme/restapi/config.ion', 'tenants/acme/projects/shop/restapi/config.ion']) {
      assert.equal((await t.fetch(`/rest/repository/files/${p}`, { method: 'DELETE', token: tokens.op })).status, 200);
    }
  });

  it('renders JSON through a transform', async () => {
    await putFile(
      t,
      tokens.admin,
      'tenants/acme/projects/shop/transform/xslt/products.xslt',
      `<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform" xmlns:fn="http://www.w3.org/2005/xpath-functions">
  <xsl:template match="/">
    <data><xsl:for-each select="//fn:map[fn:string[@key='name']]"><item><title><xsl:value-of select="fn:string[@key='name']"/></title><price><xsl:value-of select="fn:number[@key='price']"/></price></item></xsl:for-each></data>
  </xsl:template>
</xsl:stylesheet>`,
    );
    const [id] = await submit(t, tokens.jobs, JSON.stringify({ products: [{ name: 'Teapot', price: 19.5 }, { name: 'Kettle', price: 35 }] }), {
      contentType: 'application/json',
      query: 'transform=products.xslt',
    });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'renderpdf.succeeded', JSON.stringify(s));
    const text = (await pdfText(await artifactPdf(t, tokens.jobs, id!))).join('\n');
    assert.match(text, /Teapot/);
    assert.match(text, /Kettle/);
  });

  it('fails a ticket whose template has an error, with status, errorCode and a kept log', async () => {
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/broken.typ', '#let x = (1 +\n');
    const [id] = await submit(t, tokens.jobs, grid, { query: 'documentTemplate=broken' });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'renderpdf.failed');
    assert.equal(s.errorCode, '422');
    assert.match(s.errorMessage!, /broken/);
    const res = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/artifact`, { token: tokens.jobs, headers: { accept: 'application/zip' } });
    assert.equal(res.status, 200);
    const { readZip } = await import('../src/zip/index.js');
    const entries = await readZip(Buffer.from(await res.arrayBuffer()), { maxEntries: 100, maxBytes: 1e8 });
    const log = entries.find((e) => e.name === `${id}.typst.log`);
    assert.ok(log && log.kind === 'file');
    assert.match(log.data.toString(), /FATAL/);
    assert.ok(entries.some((e) => e.name === `${id}.content.xml`));
    const pdf = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/artifact`, { token: tokens.jobs, headers: { accept: 'application/pdf' } });
    assert.equal(pdf.status, 404);
  });

  it('stops a template that loops forever at the time limit and frees the slot', async () => {
    // Its own project with a 3 s limit: the loop runs for hours on any machine, so only the limit ends it.
    // Nested small ranges: one range(10^12) would grow its array into the memory ceiling (507) first.
    const loop = await setupProject(t, 'acme', 'loop');
    await putFile(t, loop.admin, 'tenants/acme/projects/loop/renderpdf/config.ion', '{ maxExecutionMillis: 3000 }');
    await putFile(t, loop.admin, 'tenants/acme/projects/loop/master-documents/forever.typ', '#let n = 0\n#for i in range(1000000) { for j in range(1000000) { n += 1 } }\n#n\n');
    const [id] = await submit(t, loop.jobs, grid, { project: 'loop', query: 'documentTemplate=forever' });
    const s = await waitComplete(t, loop.jobs, id!, undefined, 'acme', 'loop');
    assert.equal(s.status, 'renderpdf.failed');
    assert.equal(s.errorCode, '504');
    assert.match(s.errorMessage!, /time limit/);
    const [next] = await submit(t, tokens.jobs, grid);
    assert.equal((await waitComplete(t, tokens.jobs, next!)).status, 'renderpdf.succeeded');
  });

  it('keeps page counts right for a long document', async () => {
    const items = Array.from({ length: 120 }, (_, i) => `<item><title>Item ${i}</title><price>${i}</price></item>`).join('');
    const [id] = await submit(t, tokens.jobs, `<data>${items}</data>`);
    const s = await waitComplete(t, tokens.jobs, id!);
    const pdf = await artifactPdf(t, tokens.jobs, id!);
    assert.equal(s.processingPages, await pdfPageCount(pdf));
    assert.ok(s.processingPages > 1);
  });
});
