import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { AppError } from '../src/errors.js';
import { tickets } from '../src/store/index.js';
import { until } from './helpers/chaos.js';
import { pdfText } from './helpers/pdf.js';
import { setupProject } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { zipOf } from './helpers/zip.js';

/**
 * A ticket intake hands straight to its own idle worker renders from the request body while
 * intake still writes its input and commits its row. These tests hold the input's write until
 * the step has written its PDF, so the render certainly finished first, then let the write
 * succeed or fail.
 */
describeEachStore('a handed-over ticket renders while intake stores it', (kind) => {
  let t: TestServer;
  let jobs: string;
  before(async () => {
    // Every step file goes to the blob store (none in its row), so the test sees the PDF written.
    // A poll far away: no timer makes the idle worker look for due tickets, which would keep it
    // from taking tickets straight from intake for a moment.
    t = await startTestServer(kind, { inlineFileMaxBytes: 0, pollMs: 60_000 });
    jobs = (await setupProject(t)).jobs;
  });
  after(() => t.close());

  /**
   * Holds every input write until its ticket's PDF is written, then runs `finish` in its place.
   * Returns the ticket ids seen, those whose PDF never came (a ticket not handed over renders
   * only once its input is stored, so the hold gives up after a while rather than hang the
   * test), and a function that puts the store back.
   */
  function holdInputs(finish: (write: () => Promise<number>) => Promise<number>): { seen: string[]; pdfKeys: string[]; notRendered: string[]; restore: () => void } {
    const blobs = t.server.ctx.blobs;
    const put = blobs.putUnreferenced;
    const released = new Map<string, { promise: Promise<void>; release: () => void }>();
    const gate = (id: string) => {
      let g = released.get(id);
      if (!g) {
        let release = () => {};
        const promise = new Promise<void>((r) => (release = r));
        g = { promise, release };
        released.set(id, g);
      }
      return g;
    };
    const seen: string[] = [];
    const pdfKeys: string[] = [];
    const notRendered: string[] = [];
    blobs.putUnreferenced = async (key, data) => {
      const input = /^jobs\/acme\/shop\/([^/]+)\.input$/.exec(key);
      if (input) {
        const id = input[1]!;
        seen.push(id);
        const rendered = await Promise.race([gate(id).promise.then(() => true), sleep(30_000, false, { ref: false })]);
        if (!rendered) notRendered.push(id);
        return finish(() => put(key, data));
      }
      const written = await put(key, data);
      const pdf = /^jobs\/acme\/shop\/([^/]+)\/a1\.[^/]+\.pdf$/.exec(key);
      if (pdf) {
        pdfKeys.push(key);
        gate(pdf[1]!).release();
      }
      return written;
    };
    return { seen, pdfKeys, notRendered, restore: () => (blobs.putUnreferenced = put) };
  }

  /** Waits until the idle worker would take a ticket straight from intake. */
  const workerIdle = () =>
    until(
      'the worker to be idle',
      () => {
        const lease = t.server.ctx.localWorker.current?.reserve() ?? null;
        lease?.cancel();
        return Promise.resolve(lease !== null);
      },
      30_000,
    );

  const syncRender = async (title: string) =>
    t.fetch('/rest/tenants/acme/projects/shop/renderpdf?timeToWait=120000', {
      method: 'POST',
      token: jobs,
      body: await zipOf({ 'data.xml': `<data><item><title>${title}</title></item></data>` }),
      headers: { 'content-type': 'application/zip', accept: 'application/pdf' },
    });

  it('commits the rendered step once the input and the row are stored, and answers with the PDF', { timeout: 120_000 }, async () => {
    await workerIdle();
    const held = holdInputs((write) => write());
    try {
      const res = await syncRender('Rendered before it was stored');
      assert.equal(res.status, 200, res.status === 200 ? '' : await res.text());
      assert.match((await pdfText(Buffer.from(await res.arrayBuffer()))).join(''), /Rendered before it was stored/);
      assert.equal(held.seen.length, 1);
      assert.deepEqual(held.notRendered, [], 'rendered from the body before intake had stored the ticket');
      const row = await tickets.findTicket(t.server.ctx.db.kysely, held.seen[0]!);
      assert.equal(row?.status, 'renderpdf.succeeded');
      // Committed by the step that rendered it, not by a second attempt after a lost lease.
      assert.equal(row.attempt, 1);
      // The input the row points at is the request's ZIP.
      assert.equal((await t.server.ctx.blobs.get(row.input_key!))?.subarray(0, 2).toString(), 'PK');
    } finally {
      held.restore();
    }
  });

  it('drops what the step made when intake cannot store the ticket: 503, no ticket, no files, the next request renders', { timeout: 120_000 }, async () => {
    await workerIdle();
    const held = holdInputs(() => Promise.reject(new AppError('blob_unavailable', 'blob store unavailable: the test holds the disk')));
    try {
      const res = await syncRender('Never stored');
      assert.equal(res.status, 503);
      assert.match(((await res.json()) as { message: string }).message, /blob store unavailable: the test holds the disk/);
      assert.equal(held.seen.length, 1);
      assert.deepEqual(held.notRendered, [], 'rendered from the body before intake had stored the ticket');
      assert.equal(held.pdfKeys.length, 1, 'the step rendered before the store failed');
      assert.equal(await tickets.findTicket(t.server.ctx.db.kysely, held.seen[0]!), undefined);
      await until('the dropped step to remove its PDF', async () => (await t.server.ctx.blobs.get(held.pdfKeys[0]!)) === undefined, 30_000);
    } finally {
      held.restore();
    }
    await workerIdle();
    const next = await syncRender('After the failure');
    assert.equal(next.status, 200, next.status === 200 ? '' : await next.text());
    assert.match((await pdfText(Buffer.from(await next.arrayBuffer()))).join(''), /After the failure/);
  });
});
