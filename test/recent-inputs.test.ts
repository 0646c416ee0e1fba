import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RecentInputs } from '../src/tickets/recent-inputs.js';
import { pdfText } from './helpers/pdf.js';
import { artifactPdf, putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { createTestBucket, describeEachBlobStore, s3Overrides, type TestBucket } from './helpers/s3.js';
import { zipOf } from './helpers/zip.js';

describe('input bodies kept for the step that reads them', () => {
  const body = (bytes: number, fill = 1) => Buffer.alloc(bytes, fill);

  it('hands each body over once', () => {
    const held = new RecentInputs(() => 0, 1000, 60_000);
    const a = body(100);
    held.offer('a', a);
    assert.equal(held.take('a'), a);
    assert.equal(held.take('a'), undefined, 'a second take finds nothing: a redelivery reads the blob');
    assert.equal(held.size, 0);
  });

  it('admits nothing new when full, and keeps what it holds', () => {
    const held = new RecentInputs(() => 0, 1000, 60_000);
    held.offer('old', body(600));
    held.offer('new', body(600));
    assert.equal(held.size, 600);
    assert.equal(held.take('new'), undefined, 'the newer body did not fit');
    assert.equal(held.take('old')?.length, 600, 'the older one, claimed first, is still held');
    held.offer('later', body(600));
    assert.equal(held.take('later')?.length, 600, 'room again once taken');
  });

  it('drops bodies no step took within the time limit', () => {
    let now = 0;
    const held = new RecentInputs(() => now, 1000, 60_000);
    held.offer('first', body(100));
    now = 30_000;
    held.offer('second', body(100));
    now = 60_000;
    assert.equal(held.take('first'), undefined, 'held for the time limit, then dropped');
    assert.equal(held.size, 100);
    assert.equal(held.take('second')?.length, 100, 'a younger body stays');
  });
});

describeEachBlobStore('an asynchronous ticket claimed where it was stored', (blobKind) => {
  let t: TestServer;
  let jobs: string;
  let bucket: TestBucket | undefined;
  const reads: string[] = [];
  before(async () => {
    bucket = blobKind === 's3' ? await createTestBucket() : undefined;
    t = await startTestServer('sqlite', bucket ? s3Overrides(bucket.name) : {});
    const project = await setupProject(t);
    jobs = project.jobs;
    // A parallel limit: intake stores the ticket for a claim instead of handing it to the idle
    // worker with its body.
    await putFile(t, project.admin, 'tenants/acme/projects/shop/restapi/config.ion', '{ maxParallelRenders: 4 }');
    const blobs = t.server.ctx.blobs;
    const get = blobs.get.bind(blobs);
    blobs.get = async (key) => {
      reads.push(key);
      return get(key);
    };
  });
  after(async () => {
    await t.close();
    await bucket?.remove();
  });

  const renders = blobKind === 's3' ? 'renders from the body intake kept, with no GET of its input' : 'renders from its input file (the page cache holds it; no body is kept)';
  it(renders, async () => {
    const zip = await zipOf({ 'data.xml': `<data><item><title>Input via ${blobKind}</title><price>7</price></item></data>` });
    const [id] = await submit(t, jobs, zip, { contentType: 'application/zip' });
    const status = await waitComplete(t, jobs, id!);
    assert.equal(status.status, 'renderpdf.succeeded', JSON.stringify(status));
    assert.match((await pdfText(await artifactPdf(t, jobs, id!))).join(''), new RegExp(`Input via ${blobKind}`));
    const inputReads = reads.filter((k) => k.includes(id!));
    if (blobKind === 's3') assert.deepEqual(inputReads, [], 'the step read no input blob of its ticket');
    else assert.equal(inputReads.length, 1, `the step read its input file once (${inputReads.join(', ')})`);
    const input = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${id}/input`, { token: jobs, headers: { accept: 'application/zip' } });
    assert.equal(input.status, 200, await input.clone().text());
    assert.deepEqual(Buffer.from(await input.arrayBuffer()), zip, 'the stored input is the body as sent');
  });
});
