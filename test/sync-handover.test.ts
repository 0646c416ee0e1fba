import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { pdfText } from './helpers/pdf.js';
import { artifactPdf, setupProject } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const grid = '<data><item><title>Handed back in memory</title></item></data>';

/**
 * A synchronous request whose ticket this process's own worker ends is answered from what the
 * worker committed: the row as the commit left it and the output's bytes still in memory, not
 * from reading them back. The tests watch the blob store's reads and compare the answer with
 * the stored copy.
 */
describeEachStore('a synchronous answer from the worker of its own process', (kind) => {
  let t: TestServer;
  let jobs: string;
  before(async () => {
    // Every step file goes to the blob store (none in its row), so a read of one is seen.
    t = await startTestServer(kind, { renderThreads: 1, inlineFileMaxBytes: 0 });
    jobs = (await setupProject(t)).jobs;
  });
  after(() => t.close());

  /** Runs `request` while recording every key the blob store is asked to read. */
  async function watchingReads<T>(request: () => Promise<T>): Promise<{ result: T; reads: string[] }> {
    const blobs = t.server.ctx.blobs;
    const { get, stream } = blobs;
    const reads: string[] = [];
    blobs.get = (key) => (reads.push(key), get(key));
    blobs.stream = (key, range) => (reads.push(key), stream(key, range));
    try {
      return { result: await request(), reads };
    } finally {
      blobs.get = get;
      blobs.stream = stream;
    }
  }

  /** A synchronous render: the answer, its body read whole, and the ticket it names. */
  const render = async (query: string, accept: string) => {
    const res = await t.fetch(`/rest/tenants/acme/projects/shop/renderpdf?timeToWait=300000${query}`, {
      method: 'POST',
      token: jobs,
      body: grid,
      headers: { 'content-type': 'application/xml', accept },
    });
    const body = Buffer.from(await res.arrayBuffer());
    assert.equal(res.status, 200, body.toString());
    return { res, body, id: res.headers.get('x-ticket-id')! };
  };

  it('answers with the PDF in hand, the bytes the store keeps, complete before the answer', async () => {
    const { result, reads } = await watchingReads(() => render('', 'application/pdf'));
    const { res, body, id } = result;
    assert.deepEqual(reads.filter((k) => k.includes(id)), [], 'the answer read its ticket files back from the store');
    assert.match((await pdfText(body)).join(''), /Handed back in memory/);
    assert.equal(res.headers.get('content-length'), String(body.length));
    // Answered after the commit: the ticket is complete at the first look, and its stored PDF is the one answered.
    const status = (await (await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/status`, { token: jobs })).json()) as { complete: boolean; status: string };
    assert.deepEqual([status.complete, status.status], [true, 'renderpdf.succeeded']);
    assert.ok((await artifactPdf(t, jobs, id)).equals(body));
  });

  it('answers a converted page in hand too, and the stored image is the same', async () => {
    const { result, reads } = await watchingReads(() => render(`&convert=${encodeURIComponent('f=png;r=36')}`, 'image/png'));
    const { res, body, id } = result;
    assert.equal(res.headers.get('content-type'), 'image/png');
    // convert reads the PDF renderpdf stored; the image it wrote is answered from memory.
    assert.deepEqual(reads.filter((k) => k.endsWith('.png')), []);
    const stored = await t.fetch(`/rest/tenants/acme/projects/shop/storage/${id}.png`, { token: jobs });
    assert.equal(stored.status, 200);
    assert.ok(Buffer.from(await stored.arrayBuffer()).equals(body));
  });
});
