import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pdfText } from './helpers/pdf.js';
import { artifactPdf, setupProject, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { startWorkerProcess, stopProcess } from './helpers/worker-process.js';

const grid = '<data><item><title>Synchronous sheet</title></item></data>';

describeEachStore('synchronous mode with API and worker in separate processes', (kind) => {
  let t: TestServer;
  let jobs: string;
  before(async () => {
    t = await startTestServer(kind, { role: 'api' });
    jobs = (await setupProject(t)).jobs;
  });
  after(() => t.close());

  const syncRender = (timeToWait: number) =>
    t.fetch(`/rest/tenants/acme/projects/shop/renderpdf?timeToWait=${timeToWait}`, {
      method: 'POST',
      token: jobs,
      body: grid,
      headers: { 'content-type': 'application/xml', accept: 'application/pdf' },
    });

  it('answers 200 with the PDF rendered by the worker process', async () => {
    const worker = startWorkerProcess(t.settings);
    try {
      // Generous: the worker process starts (and compiles TypeScript) while the request waits.
      const res = await syncRender(300_000);
      assert.equal(res.status, 200, res.status === 200 ? '' : await res.text());
      const pdf = Buffer.from(await res.arrayBuffer());
      assert.match((await pdfText(pdf)).join(''), /Synchronous sheet/);
      // A document of ordinary size is answered whole, so the client learns its length up front.
      assert.equal(res.headers.get('content-length'), String(pdf.length));
      // Warm: a second request shows the wake-up path, not start-up.
      const started = Date.now();
      const again = await syncRender(300_000);
      assert.equal(again.status, 200);
      await again.arrayBuffer();
      console.log(`sync render across processes (${kind}): ${Date.now() - started} ms`);
    } finally {
      assert.equal(await stopProcess(worker), 0);
    }
  });

  it('answers 408 with the RenderResult when no worker finishes in time; the job continues', async () => {
    const res = await syncRender(6000);
    assert.equal(res.status, 408);
    const body = (await res.json()) as { tickets: { id: string }[] };
    assert.equal(body.tickets.length, 1);
    const id = body.tickets[0]!.id;
    const worker = startWorkerProcess(t.settings);
    try {
      const s = await waitComplete(t, jobs, id);
      assert.equal(s.status, 'renderpdf.succeeded');
      assert.match((await pdfText(await artifactPdf(t, jobs, id))).join(''), /Synchronous sheet/);
    } finally {
      await stopProcess(worker);
    }
  });
});
