import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, it } from 'node:test';
import { putPagesTemplate, renderAndWait } from './helpers/convert.js';
import { putFile, setupProject, submit, waitComplete, type Status } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const grid = `<data><item id="A-1"><title>Espresso machine</title><price>249.90</price></item></data>`;
const noProc = existsSync('/proc/self/status') ? false : 'needs /proc (Linux) to watch process memory';

describeEachStore('memory ceiling of render, transform and convert processes', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  before(async () => {
    // The time limit far off, so only the memory ceiling can end these jobs: on a loaded machine
    // the stylesheet took 41 s to reach it, when the limit here was 60 s.
    t = await startTestServer(kind, { renderThreads: 1, renderMaxMemoryMb: 200, renderTimeoutMs: 600_000, pollMs: 50 });
    tokens = await setupProject(t);
  });
  after(() => t.close());

  /** Runs `work` while asking /healthz every 50 ms; returns the slowest answer in ms. */
  async function slowestHealthz<T>(work: () => Promise<T>): Promise<{ result: T; slowestMs: number }> {
    let slowestMs = 0;
    let done = false;
    const probe = (async () => {
      while (!done) {
        const started = performance.now();
        const res = await fetch(`${t.url}/healthz`);
        assert.equal(res.status, 200);
        await res.arrayBuffer();
        slowestMs = Math.max(slowestMs, performance.now() - started);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    try {
      return { result: await work(), slowestMs };
    } finally {
      done = true;
      await probe;
    }
  }

  async function renderWith(template: string, body: string): Promise<Status> {
    await putFile(t, tokens.admin, `tenants/acme/projects/shop/master-documents/${template}.typ`, body);
    const [id] = await submit(t, tokens.jobs, grid, { query: `documentTemplate=${template}` });
    return waitComplete(t, tokens.jobs, id!);
  }

  it('fails a template that grows past the ceiling with 507 naming it, and renders the next one', { skip: noProc }, async (ctx) => {
    // range() builds its whole array: it grows until the process is stopped.
    const { result: s, slowestMs } = await slowestHealthz(() => renderWith('hog', '#for i in range(10000000000) { }\n'));
    assert.equal(s.status, 'renderpdf.failed', JSON.stringify(s));
    assert.equal(s.errorCode, '507');
    assert.match(s.errorMessage!, /memory ceiling of 200 MiB/);
    // The service keeps answering while the process grows and is killed. The figure is reported,
    // not held to the 500 ms the issue measured against: a loaded CI machine delays any request.
    ctx.diagnostic(`slowest /healthz while the render process grew: ${Math.round(slowestMs)} ms`);
    assert.ok(slowestMs < 5000, `/healthz took ${Math.round(slowestMs)} ms`);
    const [next] = await submit(t, tokens.jobs, grid);
    assert.equal((await waitComplete(t, tokens.jobs, next!)).status, 'renderpdf.succeeded');
    // An operator sees the replaced process on /metrics.
    const metrics = await (await t.fetch('/metrics', { headers: { accept: 'text/plain' } })).text();
    assert.match(metrics, /^pressroom_engine_processes_replaced_total\{engine="typst",reason="memory"\} 1$/m, metrics);
    assert.match(metrics, /^pressroom_engine_processes_replaced_total\{engine="typst",reason="crash"\} 0$/m);
  });

  it('fails one huge allocation at once with 507 instead of letting it through', { skip: noProc }, async () => {
    const s = await renderWith('huge', '#let s = "x" * 3000000000\n#s.len()\n');
    assert.equal(s.errorCode, '507', JSON.stringify(s));
    assert.match(s.errorMessage!, /memory ceiling of 200 MiB/);
  });

  it('applies the ceiling to stylesheets', { skip: noProc }, async () => {
    await putFile(
      t,
      tokens.admin,
      'tenants/acme/projects/shop/transform/xslt/hog.xslt',
      `<xsl:stylesheet version="3.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"><xsl:template match="/"><data><xsl:value-of select="string-join((1 to 300000000) ! string(.))"/></data></xsl:template></xsl:stylesheet>`,
    );
    const [id] = await submit(t, tokens.jobs, grid, { query: 'transform=hog.xslt' });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.errorCode, '507', JSON.stringify(s));
    assert.match(s.errorMessage!, /^transform hog\.xslt: .*memory ceiling of 200 MiB/);
  });

  it('applies the ceiling to conversions', { skip: noProc }, async () => {
    await putPagesTemplate(t, tokens.admin);
    // A 2 m square page at 600 dpi is lowered to 40 megapixels: a 120 MB raster, beyond 200 MiB with MuPDF itself.
    const { status } = await renderAndWait(t, tokens.jobs, `documentTemplate=pages&custom=w:5669&custom=h:5669&convert=${encodeURIComponent('format=png;resolution=600')}`);
    assert.equal(status.status, 'convert.failed', JSON.stringify(status));
    assert.equal(status.errorCode, '507');
    assert.match(status.errorMessage!, /memory ceiling of 200 MiB/);
    const { status: small } = await renderAndWait(t, tokens.jobs, `documentTemplate=pages&convert=${encodeURIComponent('format=png;resolution=72')}`);
    assert.equal(small.status, 'convert.succeeded', JSON.stringify(small));
  });
});
