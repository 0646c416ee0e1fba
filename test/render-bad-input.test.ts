import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, it } from 'node:test';
import { tickets } from '../src/store/index.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { zipOf } from './helpers/zip.js';

describeEachStore('renderpdf bad input', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50, zipMaxBytes: 1024 * 1024 });
    tokens = await setupProject(t);
    await setupProject(t, 'acme', 'other');
  });
  after(() => t.close());

  /** fetch always sends an Accept header; a request without one needs node:http. */
  const postWithoutAccept = (body: string): Promise<Response> =>
    new Promise((resolve, reject) => {
      const req = request(`${t.url}/rest/tenants/acme/projects/shop/renderpdf`, { method: 'POST', headers: { authorization: `Bearer ${tokens.jobs}`, 'content-type': 'application/xml' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(new Response(Buffer.concat(chunks), { status: res.statusCode })));
      });
      req.on('error', reject);
      req.end(body);
    });

  const post = (body: string | Buffer, opts: { query?: string; contentType?: string | null; accept?: string; token?: string; path?: string } = {}) => {
    const headers: Record<string, string> = {};
    if (opts.contentType !== null) headers['content-type'] = opts.contentType ?? 'application/xml';
    headers.accept = opts.accept ?? 'application/json';
    return fetch(`${t.url}/rest/tenants/acme/projects/${opts.path ?? 'shop'}/renderpdf${opts.query ? `?${opts.query}` : ''}`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${opts.token ?? tokens.jobs}` },
      body,
    });
  };

  /** Asserts an error answer and that no ticket was stored. */
  async function refused(res: Response, status: number, message: RegExp) {
    const text = await res.text();
    assert.equal(res.status, status, text);
    const body = JSON.parse(text) as { status: number; message: string; path: string; timestamp: string };
    assert.equal(body.status, status);
    assert.match(body.message, message);
    assert.ok(body.timestamp && body.path);
    assert.deepEqual(await tickets.openTicketIds(t.server.ctx.db.kysely, 'acme', 'shop'), []);
    const all = await t.server.ctx.db.kysely.selectFrom('tickets').select('id').execute();
    assert.equal(all.length, 0, 'no ticket stored');
  }

  it('refuses malformed XML', async () => {
    await refused(await post('<data><item></data>'), 400, /not well-formed/);
  });

  it('refuses a DOCTYPE, external entities and billion laughs without expanding them', async () => {
    await refused(await post('<!DOCTYPE d [<!ENTITY e SYSTEM "file:///etc/hostname">]><data>&e;</data>'), 400, /DOCTYPE/);
    const laughs = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;"><!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;"><!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;"><!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;"><!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;"><!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;"><!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">]><lolz>&lol9;</lolz>';
    const before = process.memoryUsage().rss;
    await refused(await post(laughs), 400, /DOCTYPE/);
    assert.ok(process.memoryUsage().rss - before < 50 * 1024 * 1024, 'memory stays flat');
  });

  it('refuses invalid JSON', async () => {
    await refused(await post('{"a":', { contentType: 'application/json' }), 400, /not valid JSON/);
  });

  it('refuses a ZIP without data.xml or data.json, and a ZIP bomb', async () => {
    await refused(await post(await zipOf({ 'other.xml': Buffer.from('<a/>') }), { contentType: 'application/zip' }), 400, /data\.xml or data\.json/);
    const bomb = await zipOf({ 'data.xml': Buffer.concat([Buffer.from('<data>'), Buffer.alloc(8 * 1024 * 1024, 0x20), Buffer.from('</data>')]) });
    assert.ok(bomb.length < 64 * 1024, `bomb is small (${bomb.length})`);
    await refused(await post(bomb, { contentType: 'application/zip' }), 400, /./);
  });

  it('answers 415 for an unsupported Content-Type and 406 for a missing or unsupported Accept', async () => {
    await refused(await post('<data/>', { contentType: 'text/plain' }), 415, /Content-Type/);
    await refused(await post('<data/>', { contentType: null }), 415, /Content-Type/);
    await refused(await postWithoutAccept('<data/>'), 406, /Accept/);
    await refused(await post('<data/>', { accept: 'text/html' }), 406, /Accept/);
    await refused(await post('<data/>', { accept: 'application/pdf' }), 406, /timeToWait/);
  });

  it('answers 400 naming the parameter for invalid query values', async () => {
    const cases: [string, RegExp][] = [
      ['transform=../x.xslt', /transform/],
      ['transform=x.xsl', /transform/],
      ['transformBefore=a b.xslt', /transformBefore/],
      ['timeToWait=100', /timeToWait/],
      ['timeToWait=abc', /timeToWait/],
      ['timeToWait=2000000', /timeToWait/],
      ['documentTemplate=../../etc/passwd', /documentTemplate/],
      ['custom=nocolon', /custom/],
      ['callback=ftp://example.com/x', /callback/],
      ['error=not a url', /error/],
      ['profile=a;b', /profile/],
    ];
    for (const [query, re] of cases) await refused(await post('<data/>', { query }), 400, re);
  });

  it('answers 400 for an unknown template or stylesheet', async () => {
    await refused(await post('<data/>', { query: 'documentTemplate=nosuch' }), 400, /template nosuch not found/);
    await refused(await post('<data/>', { query: 'transform=nosuch.xslt' }), 400, /stylesheet nosuch\.xslt not found/);
  });

  it('answers 401 for a token of a deleted project, 403 for a token of another project, 405 for GET', async () => {
    await refused(await post('<data/>', { token: tokens.op }), 403, /not valid/);
    const other = await t.token('acme', 'other', 'jobs');
    await refused(await post('<data/>', { token: other }), 403, /not valid/);
    // A token does not outlive its project: it is revoked with it.
    await setupProject(t, 'acme', 'temp');
    const tempToken = await t.token('acme', 'temp', 'jobs');
    assert.equal((await t.fetch('/rest/tenants/acme/projects/temp', { method: 'DELETE', token: tokens.op })).status, 200);
    await refused(await post('<data/>', { token: tempToken, path: 'temp' }), 401, /revoked/);
    const get = await t.fetch('/rest/tenants/acme/projects/shop/renderpdf', { token: tokens.jobs });
    assert.equal(get.status, 405);
  });

  it('answers 404, without leaking, for status or artifact of another project\'s ticket', async () => {
    const [id] = await submit(t, tokens.jobs, '<data><item><title>x</title></item></data>');
    await waitComplete(t, tokens.jobs, id!);
    const other = await t.token('acme', 'other', 'jobs');
    for (const suffix of ['status', 'artifact']) {
      const res = await t.fetch(`/rest/tenants/acme/projects/other/tickets/${id}/${suffix}`, { token: other, headers: { accept: suffix === 'status' ? 'application/json' : 'application/pdf' } });
      assert.equal(res.status, 404);
      assert.doesNotMatch(await res.text(), /shop/);
    }
    const storage = await t.fetch(`/rest/tenants/acme/projects/other/storage/${id}.pdf`, { token: other });
    assert.equal(storage.status, 404);
    const status = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/NOTANID/status`, { token: tokens.jobs });
    assert.equal(status.status, 404);
    await t.server.ctx.db.kysely.deleteFrom('artifacts').execute();
    await t.server.ctx.db.kysely.deleteFrom('tickets').execute();
  });

  it('fails a stylesheet that tries to read a local file, without side effects', async () => {
    await putFile(
      t,
      tokens.admin,
      'tenants/acme/projects/shop/transform/xslt/steal.xslt',
      `<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/"><data><item><title><xsl:value-of select="unparsed-text('/etc/hostname')"/></title></item></data></xsl:template></xsl:stylesheet>`,
    );
    const [id] = await submit(t, tokens.jobs, '<data/>', { query: 'transform=steal.xslt' });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'renderpdf.failed', JSON.stringify(s));
    assert.match(s.errorMessage!, /steal\.xslt/);
    await t.server.ctx.db.kysely.deleteFrom('artifacts').execute();
    await t.server.ctx.db.kysely.deleteFrom('tickets').execute();
  });
});
