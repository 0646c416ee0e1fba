import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { readZip } from '../src/zip/index.js';
import { openDeck } from './fixtures/pptx/deck.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const deck = `<presentation>
  <slide layout="Title Slide"><field name="title">Quarterly report</field><field name="subTitle">Third quarter</field><notes>Welcome everyone</notes></slide>
  <slide layout="Title and Content"><field name="title">Highlights</field><field name="body"><p>Revenue up</p><p level="2">Europe strongest</p></field></slide>
</presentation>`;

describeEachStore('renderpptx over HTTP', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 });
    tokens = await setupProject(t);
  });
  after(() => t.close());

  const artifact = async (id: string, accept: string) => {
    const res = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/artifact`, { token: tokens.jobs, headers: { accept } });
    assert.equal(res.status, 200, await res.clone().text());
    return Buffer.from(await res.arrayBuffer());
  };

  it('renders a deck from the built-in master asynchronously, slide count as processingPages', async () => {
    const [id] = await submit(t, tokens.jobs, deck, { target: 'renderpptx' });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'renderpptx.succeeded', JSON.stringify(s));
    const view = await openDeck(await artifact(id!, PPTX));
    assert.equal(view.slides.length, 2);
    assert.equal(s.processingPages, 2);
    assert.match(view.slides[0]!.shapes.map((x) => x.text).join(' '), /Quarterly report/);
    assert.match(view.slides[1]!.shapes.map((x) => x.text).join(' '), /Europe strongest/);
  });

  it('serves the stored deck as application/octet-stream; the artifact endpoint keeps the presentation type', async () => {
    const [id] = await submit(t, tokens.jobs, deck, { target: 'renderpptx' });
    assert.equal((await waitComplete(t, tokens.jobs, id!)).status, 'renderpptx.succeeded');
    const stored = await t.fetch(`/rest/tenants/acme/projects/shop/storage/${id}.pptx?shipped=false`, { token: tokens.jobs, headers: { accept: '*/*' } });
    assert.equal(stored.status, 200);
    assert.equal(stored.headers.get('content-type'), 'application/octet-stream');
    const bytes = Buffer.from(await stored.arrayBuffer());
    assert.equal((await openDeck(bytes)).slides.length, 2);
    const res = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/artifact`, { token: tokens.jobs, headers: { accept: '*/*' } });
    assert.equal(res.headers.get('content-type'), PPTX);
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes));
  });

  it('answers synchronously with the deck', async () => {
    const res = await t.fetch('/rest/tenants/acme/projects/shop/renderpptx?timeToWait=300000', {
      method: 'POST',
      token: tokens.jobs,
      body: deck,
      headers: { 'content-type': 'application/xml', accept: PPTX },
    });
    assert.equal(res.status, 200, res.status === 200 ? '' : await res.text());
    assert.equal(res.headers.get('content-type'), PPTX);
    assert.equal((await openDeck(Buffer.from(await res.arrayBuffer()))).slides.length, 2);
  });

  it('refuses JSON without a transform with 400 naming transform', async () => {
    const res = await t.fetch('/rest/tenants/acme/projects/shop/renderpptx', { method: 'POST', token: tokens.jobs, body: '{"slides":[]}', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { message: string }).message, /transform/);
  });

  it('refuses convert with 400 naming it', async () => {
    const res = await t.fetch('/rest/tenants/acme/projects/shop/renderpptx?convert=f%3Dpng', { method: 'POST', token: tokens.jobs, body: deck, headers: { 'content-type': 'application/xml' } });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { message: string }).message, /convert/);
  });

  it('fails clearly for a master that is not a PPTX and for an unknown layout, keeping the log', async () => {
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/powerpoint/broken.pptx', 'not a zip at all');
    const [bad] = await submit(t, tokens.jobs, deck, { target: 'renderpptx', query: 'documentTemplate=broken' });
    const s1 = await waitComplete(t, tokens.jobs, bad!);
    assert.equal(s1.status, 'renderpptx.failed');
    assert.equal(s1.errorCode, '422');
    assert.match(s1.errorMessage!, /master/);
    const [unknown] = await submit(t, tokens.jobs, '<presentation><slide layout="No Such Layout"><field name="title">x</field></slide></presentation>', { target: 'renderpptx' });
    const s2 = await waitComplete(t, tokens.jobs, unknown!);
    assert.equal(s2.status, 'renderpptx.failed');
    assert.match(s2.errorMessage!, /No Such Layout/);
    const names = (await readZip(await artifact(unknown!, 'application/zip'), { maxEntries: 10, maxBytes: 1e7 })).map((e) => e.name).sort();
    assert.deepEqual(names, [`${unknown}.content.xml`, `${unknown}.pptx.log`]);
  });

  it('stops a render past maxExecutionMillis with 504 and a fatal log line, after the configured redeliveries', async () => {
    await putFile(
      t,
      tokens.admin,
      'tenants/acme/projects/shop/renderpptx/config.ion',
      '{ maxExecutionMillis: 1, redeliverOnError: [ { codePattern: "504", maxRedeliveries: 1 } ] }',
    );
    try {
      const many = `<presentation>${Array.from({ length: 300 }, (_, i) => `<slide layout="Title and Content"><field name="title">Slide ${i}</field><field name="body"><p>Point ${i}</p></field></slide>`).join('')}</presentation>`;
      const [id] = await submit(t, tokens.jobs, many, { target: 'renderpptx' });
      const s = await waitComplete(t, tokens.jobs, id!);
      assert.equal(s.status, 'renderpptx.failed');
      assert.equal(s.errorCode, '504');
      assert.equal(s.redeliveries, 1);
      const entries = await readZip(await artifact(id!, 'application/zip'), { maxEntries: 10, maxBytes: 1e7 });
      const log = entries.find((e) => e.name === `${id}.pptx.log`);
      assert.ok(log && log.kind === 'file');
      assert.match(log.data.toString(), /FATAL maxExecutionMillis/);
    } finally {
      await t.fetch('/rest/repository/files/tenants/acme/projects/shop/renderpptx/config.ion', { method: 'DELETE', token: tokens.admin });
    }
  });
});
