import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import * as mupdf from 'mupdf';
import { pdfPageCount, pdfText } from './helpers/pdf.js';
import { artifactPdf, putFile, setupProject, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const items = (n: number, type = 'document') => Array.from({ length: n }, (_, i) => `<item type="${type}" title="Doc ${i + 1}"><title>Document ${i + 1}</title></item>`).join('');

describeEachStore('fanout and aggregate', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  const cfg = 'tenants/acme/projects/shop/restapi/config.ion';
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 });
    tokens = await setupProject(t);
  });
  after(() => t.close());

  const post = async (body: string, query = '', accept = 'application/json', contentType = 'application/xml') =>
    t.fetch(`/rest/tenants/acme/projects/shop/renderpdf${query}`, { method: 'POST', token: tokens.jobs, body, headers: { 'content-type': contentType, accept } });

  it('splits at rootPath on itemAttribute = itemType, one ticket per part, each with its own data', async () => {
    await putFile(t, tokens.admin, cfg, '{ fanout: { enabled: true, rootPath: "/data/item", itemType: "document", itemAttribute: "type" } }');
    const res = await post(`<data region="north">${items(3)}<item type="note"><title>Skip me</title></item></data>`);
    assert.equal(res.status, 202);
    const body = (await res.json()) as { tickets: { id: string }[]; aggregate?: unknown };
    assert.equal(body.tickets.length, 3);
    assert.equal(body.aggregate, undefined);
    for (const [i, { id }] of body.tickets.entries()) {
      assert.equal((await waitComplete(t, tokens.jobs, id)).status, 'renderpdf.succeeded');
      const text = (await pdfText(await artifactPdf(t, tokens.jobs, id))).join('\n');
      assert.match(text, new RegExp(`Document ${i + 1}`));
      assert.doesNotMatch(text, /Skip me/);
      for (const other of [1, 2, 3].filter((n) => n !== i + 1)) assert.doesNotMatch(text, new RegExp(`Document ${other}\\b`));
    }
  });

  it('takes every element at the path when itemAttribute is empty', async () => {
    await putFile(t, tokens.admin, cfg, '{ fanout: { enabled: true, itemAttribute: "" } }');
    const res = await post(`<data>${items(2)}<item><title>Untyped</title></item></data>`);
    assert.equal(((await res.json()) as { tickets: unknown[] }).tickets.length, 3);
  });

  it('answers the contract\'s 500 when no fanout data is found, storing nothing', async () => {
    await putFile(t, tokens.admin, cfg, '{ fanout: { enabled: true } }');
    const before = await t.server.ctx.db.kysely.selectFrom('tickets').select('id').execute();
    const res = await post('<data><other/></data>');
    assert.equal(res.status, 500);
    const body = (await res.json()) as Record<string, unknown>;
    assert.match(String(body.message), /no fanout data was found/);
    for (const f of ['timestamp', 'status', 'error', 'path']) assert.ok(f in body, f);
    assert.equal((await t.server.ctx.db.kysely.selectFrom('tickets').select('id').execute()).length, before.length);
  });

  it('refuses JSON with fanout but no transformBefore, and splits JSON turned into XML by one', async () => {
    await putFile(t, tokens.admin, cfg, '{ fanout: { enabled: true, itemAttribute: "" } }');
    const json = JSON.stringify({ docs: [{ title: 'Alpha' }, { title: 'Beta' }] });
    const refused = await post(json, '', 'application/json', 'application/json');
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as { message: string }).message, /transformBefore/);
    await putFile(
      t,
      tokens.admin,
      'tenants/acme/projects/shop/transform/xslt/docs.xslt',
      `<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform" xmlns:fn="http://www.w3.org/2005/xpath-functions"><xsl:template match="/"><data><xsl:for-each select="//fn:map[fn:string[@key='title']]"><item><title><xsl:value-of select="fn:string[@key='title']"/></title></item></xsl:for-each></data></xsl:template></xsl:stylesheet>`,
    );
    const res = await post(json, '?transformBefore=docs.xslt', 'application/json', 'application/json');
    assert.equal(res.status, 202);
    const ids = ((await res.json()) as { tickets: { id: string }[] }).tickets.map((x) => x.id);
    assert.equal(ids.length, 2);
    const texts = await Promise.all(ids.map(async (id) => (await waitComplete(t, tokens.jobs, id), (await pdfText(await artifactPdf(t, tokens.jobs, id))).join(''))));
    assert.match(texts[0]!, /Alpha/);
    assert.match(texts[1]!, /Beta/);
  });

  it('aggregates the parts into one PDF in input order with a bookmark per part', async () => {
    await putFile(t, tokens.admin, cfg, '{ fanout: { enabled: true }, aggregate: { enabled: true } }');
    const res = await post(`<data>${items(4)}</data>`);
    const body = (await res.json()) as { tickets: { id: string }[]; aggregate: { id: string } };
    assert.equal(body.tickets.length, 4);
    const partStatus = (await (await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${body.tickets[0]!.id}/status`, { token: tokens.jobs })).json()) as { aggregate: string };
    assert.equal(partStatus.aggregate, body.aggregate.id);
    let partPages = 0;
    for (const { id } of body.tickets) partPages += (await waitComplete(t, tokens.jobs, id)).processingPages;
    const s = await waitComplete(t, tokens.jobs, body.aggregate.id);
    assert.equal(s.status, 'aggregate.succeeded', JSON.stringify(s));
    const pdf = await artifactPdf(t, tokens.jobs, body.aggregate.id);
    assert.equal(await pdfPageCount(pdf), partPages);
    assert.equal(s.processingPages, partPages);
    const outline = mupdf.Document.openDocument(pdf, 'application/pdf').loadOutline() ?? [];
    assert.deepEqual(outline.map((o) => o.title), ['Doc 1', 'Doc 2', 'Doc 3', 'Doc 4']);
    assert.deepEqual(outline.map((o) => o.page), [0, 1, 2, 3], 'each bookmark opens its part’s first page');
    const text = (await pdfText(pdf)).join('\n');
    assert.ok(text.indexOf('Document 1') < text.indexOf('Document 4'));
  });

  it('merges the PDFs of parts that were converted to images, which stay stored beside the images', async () => {
    await putFile(t, tokens.admin, cfg, '{ fanout: { enabled: true }, aggregate: { enabled: true } }');
    const res = await post(`<data>${items(3)}</data>`, '?convert=f%3Dpng');
    const body = (await res.json()) as { tickets: { id: string }[]; aggregate: { id: string } };
    for (const { id } of body.tickets) {
      const part = await waitComplete(t, tokens.jobs, id);
      assert.equal(part.status, 'convert.succeeded', JSON.stringify(part));
      const main = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/artifact`, { token: tokens.jobs, headers: { accept: '*/*' } });
      assert.equal(main.headers.get('content-type'), 'image/png', await main.clone().text());
    }
    // The aggregate is converted as well (its first page as the main output), its PDF kept beside.
    const s = await waitComplete(t, tokens.jobs, body.aggregate.id);
    assert.equal(s.status, 'convert.succeeded', JSON.stringify(s));
    assert.equal(s.outputName, `${body.aggregate.id}.png`);
    const pdf = await artifactPdf(t, tokens.jobs, body.aggregate.id);
    const outline = mupdf.Document.openDocument(pdf, 'application/pdf').loadOutline() ?? [];
    assert.deepEqual(outline.map((o) => o.title), ['Doc 1', 'Doc 2', 'Doc 3']);
    const text = await pdfText(pdf);
    assert.equal(text.length, 3);
    text.forEach((page, i) => assert.match(page, new RegExp(`Document ${i + 1}`)));
  });

  it('returns the aggregate in synchronous mode', async () => {
    await putFile(t, tokens.admin, cfg, '{ fanout: { enabled: true }, aggregate: { enabled: true } }');
    const res = await post(`<data>${items(3)}</data>`, '?timeToWait=300000', 'application/pdf');
    assert.equal(res.status, 200, res.status === 200 ? '' : await res.text());
    const text = (await pdfText(Buffer.from(await res.arrayBuffer()))).join('\n');
    for (const n of [1, 2, 3]) assert.match(text, new RegExp(`Document ${n}`));
  });

  it('fails the aggregate when a part fails, and runs no merge', async () => {
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/picky.typ', '#let d = xml("/data.xml").at(0)\n#let s = repr(d)\n#if s.contains("Document 2") { panic("part two is refused") }\nOK\n');
    await putFile(t, tokens.admin, cfg, '{ fanout: { enabled: true }, aggregate: { enabled: true } }');
    const res = await post(`<data>${items(3)}</data>`, '?documentTemplate=picky');
    const body = (await res.json()) as { tickets: { id: string }[]; aggregate: { id: string } };
    const s = await waitComplete(t, tokens.jobs, body.aggregate.id);
    assert.equal(s.status, 'aggregate.failed');
    assert.equal(s.errorCode, '424');
    assert.match(s.errorMessage!, /part 2 .*failed/);
  });

  it('fails the aggregate when its parts outlast aggregate.timeoutInSeconds', async () => {
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/slow.typ', '#let n = 0\n#for i in range(8000000) { n += 1 }\nSLOW #n\n');
    await putFile(t, tokens.admin, cfg, '{ fanout: { enabled: true }, aggregate: { enabled: true, timeoutInSeconds: 1 } }');
    const res = await post(`<data>${items(3)}</data>`, '?documentTemplate=slow');
    const body = (await res.json()) as { tickets: { id: string }[]; aggregate: { id: string } };
    const s = await waitComplete(t, tokens.jobs, body.aggregate.id);
    assert.equal(s.status, 'aggregate.failed');
    assert.equal(s.errorCode, '504');
    assert.match(s.errorMessage!, /timed out/);
    for (const { id } of body.tickets) await waitComplete(t, tokens.jobs, id);
  });
});
