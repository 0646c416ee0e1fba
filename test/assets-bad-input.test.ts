// Media assets that must not make it into a render: slow, huge, not an image, behind a
// redirect to a private address, or resolving to one. Each is left out with a warning that
// names the URL; the ticket still succeeds, and a refused address never sees a request.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { counters, serve, startAssetServer, type AssetServer } from './helpers/asset-server.js';
import { pdfImageCount, pdfText } from './helpers/pdf.js';
import { tinyPng } from './helpers/png.js';
import { artifactPdf, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer } from './helpers/server.js';
import { describeEachStore, type StoreKind } from './helpers/stores.js';

const MAX_BYTES = 64 * 1024;
// Every server that must time out hangs or trickles forever, so the limit can be roomy: the
// downloads that must succeed (at most four per job) then never run out of time on a slow machine.
const TIMEOUT_MS = 5000;

/** A pressroom with small asset limits, and a render helper returning warnings, images, text and log. */
async function harness(kind: StoreKind, allowPrivateAddresses: string[]) {
  const t = await startTestServer(kind, { renderThreads: 1, pollMs: 50, allowPrivateAddresses, assetMaxBytes: MAX_BYTES, assetTimeoutMs: TIMEOUT_MS, assetMaxCount: 4 });
  const { jobs } = await setupProject(t);
  const render = async (...urls: string[]) => {
    const started = Date.now();
    const body = `<data>${urls.map((u, i) => `<item><name>Item ${i + 1}</name><photo>${u}</photo></item>`).join('')}</data>`;
    const [id] = await submit(t, jobs, body);
    const status = await waitComplete(t, jobs, id!);
    assert.equal(status.status, 'renderpdf.succeeded', JSON.stringify(status));
    const pdf = await artifactPdf(t, jobs, id!);
    const log = await (await t.fetch(`/rest/tenants/acme/projects/shop/storage/${id}.typst.log?shipped=false`, { token: jobs, headers: { accept: '*/*' } })).text();
    return { ms: Date.now() - started, messages: status.messages, images: await pdfImageCount(pdf, 0), text: (await pdfText(pdf)).join('\n'), log };
  };
  return { t, render };
}

describeEachStore('media assets: bad input', (kind) => {
  let cdn: AssetServer;
  let privateHost: AssetServer;
  let h: Awaited<ReturnType<typeof harness>>;
  before(async () => {
    cdn = await startAssetServer('127.0.0.1');
    privateHost = await startAssetServer('127.0.0.2');
    privateHost.route('/secret.png', serve(tinyPng(10, 10), { 'content-type': 'image/png' }));
    h = await harness(kind, ['127.0.0.1']);
  });
  after(async () => {
    await h.t.close();
    await Promise.all([cdn.close(), privateHost.close()]);
  });

  /** Renders one URL and checks it was left out with a warning matching `reason`. */
  async function leftOut(url: string, reason: RegExp) {
    const r = await h.render(url);
    assert.equal(r.messages.length, 1, JSON.stringify(r.messages));
    assert.ok(r.messages[0]!.startsWith(`asset ${url} not available: `), r.messages[0]);
    assert.match(r.messages[0]!, reason);
    assert.match(r.log, /WARN {2}asset .* not available/);
    assert.equal(r.images, 0);
    assert.match(r.text.replace(/\s+/g, ''), new RegExp(new URL(url).pathname.replace(/[.?]/g, '\\$&')), 'the URL is printed instead');
    assert.deepEqual({ ...counters(r.log), msec: 0 }, { requests: 0, bytes: 0, msec: 0, cacheHits: 0, failed: 1 });
    return r;
  }

  it('gives up on a server that does not answer in time', async () => {
    cdn.route('/slow.png', () => new Promise(() => {}));
    const r = await leftOut(`${cdn.base}/slow.png`, new RegExp(`timed out after ${TIMEOUT_MS} ms`));
    assert.ok(r.ms < 60_000, `the render did not wait for the server (${r.ms} ms)`);
  });

  it('gives up on a body that trickles past the time limit', async () => {
    cdn.route('/trickle.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(tinyPng(10, 10).subarray(0, 16));
      const timer = setInterval(() => res.write(Buffer.alloc(1)), 100);
      res.once('close', () => clearInterval(timer));
    });
    await leftOut(`${cdn.base}/trickle.png`, /timed out/);
  });

  it('refuses a body over the size limit, by Content-Length and while streaming', async () => {
    const huge = Buffer.concat([tinyPng(10, 10), Buffer.alloc(4 * MAX_BYTES)]);
    cdn.route('/huge.png', serve(huge, { 'content-type': 'image/png' }));
    await leftOut(`${cdn.base}/huge.png`, new RegExp(`larger than the limit of ${MAX_BYTES} bytes \\(Content-Length ${huge.length}\\)`));
    cdn.route('/chunked.png', (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(huge);
    });
    await leftOut(`${cdn.base}/chunked.png`, new RegExp(`larger than the limit of ${MAX_BYTES} bytes$`));
  });

  it('refuses what is not an image, by Content-Type and by content', async () => {
    cdn.route('/page.png', serve(Buffer.from('<html>hello</html>'), { 'content-type': 'text/html; charset=utf-8' }));
    await leftOut(`${cdn.base}/page.png`, /served as text\/html; charset=utf-8, not as PNG/);
    cdn.route('/fake.png', serve(Buffer.from('<html>not a png</html>'), { 'content-type': 'image/png' }));
    await leftOut(`${cdn.base}/fake.png`, /content is no PNG, JPEG, GIF, WebP or SVG image/);
  });

  it('refuses a redirect from an allowed server to a private address, before connecting', async () => {
    cdn.route('/moved.png', (_req, res) => void res.writeHead(302, { location: `${privateHost.base}/secret.png` }).end());
    await leftOut(`${cdn.base}/moved.png`, new RegExp(`redirect to ${privateHost.base}/secret.png: refused: .*127\\.0\\.0\\.2.*not a public address`));
    assert.equal(privateHost.hits.length, 0, 'the private address got no request');
  });

  it('refuses the private address and the metadata address themselves', async () => {
    await leftOut(`${privateHost.base}/secret.png`, /refused: .*not a public address/);
    await leftOut('http://169.254.169.254/latest/image.png', /refused: .*169\.254\.169\.254.*not a public address/);
    assert.equal(privateHost.hits.length, 0);
  });

  it('takes at most PRESSROOM_ASSET_MAX_COUNT URLs and says how many it left out', async () => {
    for (let i = 0; i < 6; i++) cdn.route(`/many/${i}.png`, serve(tinyPng(10 + i, 10), { 'content-type': 'image/png' }));
    const r = await h.render(...[0, 1, 2, 3, 4, 5].map((i) => `${cdn.base}/many/${i}.png`));
    assert.equal(counters(r.log).requests, 4);
    assert.deepEqual(r.messages, ['2 more asset URL(s) not downloaded: at most 4 per job (PRESSROOM_ASSET_MAX_COUNT)']);
    assert.equal(cdn.hits.filter((x) => x.path.startsWith('/many/')).length, 4);
  });
});

describeEachStore('media assets: without an allow-list', (kind) => {
  let cdn: AssetServer;
  let h: Awaited<ReturnType<typeof harness>>;
  before(async () => {
    cdn = await startAssetServer('127.0.0.1');
    cdn.route('/x.png', serve(tinyPng(10, 10), { 'content-type': 'image/png' }));
    h = await harness(kind, []);
  });
  after(async () => {
    await h.t.close();
    await cdn.close();
  });

  it('refuses a host name that resolves to loopback, and the loopback address', async () => {
    for (const url of [`http://localhost:${cdn.port}/x.png`, `${cdn.base}/x.png`]) {
      const r = await h.render(url);
      assert.equal(r.images, 0);
      assert.match(r.messages.join('\n'), new RegExp(`asset ${url.replace(/[.?]/g, '\\$&')} not available: refused: .*not a public address`));
    }
    assert.equal(cdn.hits.length, 0, 'no request reached the server');
  });
});
