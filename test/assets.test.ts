// Media assets end to end: a real local asset server, renders through the REST API, the
// image checked in the PDF, the cache checked by what the server saw, the counters by the
// summary line of the render log.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, it } from 'node:test';
import { counters, serve, startAssetServer, type AssetServer } from './helpers/asset-server.js';
import { pdfImageCount, pdfPageCount, pdfText } from './helpers/pdf.js';
import { tinyPng } from './helpers/png.js';
import { artifactPdf, putFile, setupProject, submit, waitComplete, type Status } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const png = { 'content-type': 'image/png' };

describeEachStore('media assets', (kind) => {
  let t: TestServer;
  let cdn: AssetServer;
  let acme: { jobs: string; admin: string };
  let globex: { jobs: string; admin: string };
  let offset = 0;
  before(async () => {
    cdn = await startAssetServer();
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50, allowPrivateAddresses: ['127.0.0.1'] }, { now: () => Date.now() + offset });
    acme = await setupProject(t);
    globex = await setupProject(t, 'globex', 'shop');
  });
  after(async () => {
    await t.close();
    await cdn.close();
  });

  /** Renders `body` for acme/shop (or globex/shop) and returns status, PDF, text and log. */
  async function render(body: string, opts: { tenant?: 'acme' | 'globex'; query?: string; contentType?: string; project?: string; token?: string } = {}) {
    const tenant = opts.tenant ?? 'acme';
    const project = opts.project ?? 'shop';
    const token = opts.token ?? (tenant === 'acme' ? acme : globex).jobs;
    const [id] = await submit(t, token, body, { tenant, project, ...(opts.query ? { query: opts.query } : {}), ...(opts.contentType ? { contentType: opts.contentType } : {}) });
    const status: Status = await waitComplete(t, token, id!, 30_000, tenant, project);
    assert.equal(status.status, 'renderpdf.succeeded', JSON.stringify(status));
    const pdf = await artifactPdf(t, token, id!, tenant, project);
    const res = await t.fetch(`/rest/tenants/${tenant}/projects/${project}/storage/${id}.typst.log?shipped=false`, { token, headers: { accept: '*/*' } });
    assert.equal(res.status, 200);
    return { status, pdf, text: (await pdfText(pdf)).join('\n'), log: await res.text() };
  }

  const sheet = (...urls: string[]) => `<data>${urls.map((u, i) => `<item><name>Item ${i + 1}</name><photo>${u}</photo></item>`).join('')}</data>`;

  it('embeds a downloaded image in the PDF and serves the second render from the cache', async () => {
    const image = tinyPng(120, 80);
    cdn.route('/one/photo.png', serve(image, { ...png, 'cache-control': 'max-age=3600' }));
    const first = await render(sheet(`${cdn.base}/one/photo.png`));
    assert.equal(await pdfImageCount(first.pdf, 0), 1);
    assert.ok(!first.text.includes('/one/photo.png'), 'the URL is shown as the image, not as text');
    assert.deepEqual(first.status.messages, []);
    assert.deepEqual({ ...counters(first.log), msec: 0 }, { requests: 1, bytes: image.length, cacheHits: 0, failed: 0, msec: 0 });

    const second = await render(sheet(`${cdn.base}/one/photo.png`));
    assert.equal(await pdfImageCount(second.pdf, 0), 1);
    assert.equal(cdn.count('/one/photo.png'), 1, 'the server saw one request');
    assert.deepEqual(counters(second.log), { requests: 0, bytes: 0, msec: 0, cacheHits: 1, failed: 0 });
  });

  it('downloads the assets of a job in parallel', async () => {
    const images = [0, 1, 2, 3].map((i) => tinyPng(40 + i, 30));
    images.forEach((img, i) => cdn.route(`/par/${i}.png`, serve(img, png, { delayMs: 2000 })));
    const { pdf, log } = await render(sheet(...images.map((_, i) => `${cdn.base}/par/${i}.png`)));
    // Four items with a picture each: every picture is embedded (the default template starts a page per such item).
    let embedded = 0;
    for (let page = 0; page < (await pdfPageCount(pdf)); page++) embedded += await pdfImageCount(pdf, page);
    assert.equal(embedded, 4);
    const hits = cdn.hits.filter((h) => h.path.startsWith('/par/'));
    assert.equal(hits.length, 4);
    assert.ok(Math.max(...hits.map((h) => h.start)) < Math.min(...hits.map((h) => h.end)), 'all four requests were in progress at once');
    const c = counters(log);
    assert.deepEqual({ ...c, msec: 0 }, { requests: 4, bytes: images.reduce((s, i) => s + i.length, 0), msec: 0, cacheHits: 0, failed: 0 });
    assert.ok(c.msec >= 4 * 1990, `download msec are summed over parallel downloads (${c.msec})`);
  });

  it('revalidates with If-None-Match and reuses the image on 304', async () => {
    cdn.route('/etag/logo.png', serve(tinyPng(50, 50), { ...png, etag: '"v1"', 'cache-control': 'no-cache' }));
    await render(sheet(`${cdn.base}/etag/logo.png`));
    const second = await render(sheet(`${cdn.base}/etag/logo.png`));
    const hits = cdn.hits.filter((h) => h.path === '/etag/logo.png');
    assert.deepEqual(hits.map((h) => h.ifNoneMatch), [undefined, '"v1"']);
    assert.equal(await pdfImageCount(second.pdf, 0), 1);
    assert.match(second.log, /not modified \(304\)/);
    assert.deepEqual(counters(second.log), { requests: 0, bytes: 0, msec: 0, cacheHits: 1, failed: 0 });
  });

  it('keeps a max-age response fresh, then revalidates it with If-Modified-Since (clock moved, no sleeping)', async () => {
    const lastModified = 'Wed, 01 Jan 2025 00:00:00 GMT';
    cdn.route('/lm/a.png', serve(tinyPng(30, 30), { ...png, 'cache-control': 'max-age=60', 'last-modified': lastModified }));
    const url = `${cdn.base}/lm/a.png`;
    await render(sheet(url));
    await render(sheet(url));
    assert.equal(cdn.count('/lm/a.png'), 1, 'fresh for 60 s');
    offset += 120_000;
    const third = await render(sheet(url));
    assert.deepEqual(cdn.hits.filter((h) => h.path === '/lm/a.png').map((h) => h.ifModifiedSince), [undefined, lastModified]);
    assert.equal(counters(third.log).cacheHits, 1);
    await render(sheet(url));
    assert.equal(cdn.count('/lm/a.png'), 2, 'fresh again for 60 s after the 304');
  });

  it('does not keep no-store responses', async () => {
    cdn.route('/nostore/a.png', serve(tinyPng(20, 20), { ...png, 'cache-control': 'no-store', etag: '"x"' }));
    for (let i = 0; i < 2; i++) assert.equal(counters((await render(sheet(`${cdn.base}/nostore/a.png`))).log).requests, 1);
    assert.deepEqual(cdn.hits.filter((h) => h.path === '/nostore/a.png').map((h) => h.ifNoneMatch), [undefined, undefined]);
  });

  it('shares public responses across tenants and keeps private ones per tenant', async () => {
    cdn.route('/pub/a.png', serve(tinyPng(20, 20), { ...png, 'cache-control': 'public, max-age=3600' }));
    cdn.route('/priv/a.png', serve(tinyPng(21, 20), { ...png, 'cache-control': 'private, max-age=3600' }));
    const urls = [`${cdn.base}/pub/a.png`, `${cdn.base}/priv/a.png`];
    assert.equal(counters((await render(sheet(...urls))).log).requests, 2);
    assert.equal(counters((await render(sheet(...urls))).log).cacheHits, 2);
    const other = counters((await render(sheet(...urls), { tenant: 'globex' })).log);
    assert.deepEqual([other.requests, other.cacheHits], [1, 1]);
    assert.equal(cdn.count('/pub/a.png'), 1);
    assert.equal(cdn.count('/priv/a.png'), 2, 'the private image was fetched again for the other tenant');
  });

  it('gives templates asset(url) and image-or-none(url); a failed asset is none and a warning', async () => {
    cdn.route('/tpl/ok.png', serve(tinyPng(64, 64), png));
    const template = [
      '#import "/pressroom/lib.typ": asset, image-or-none, children, text-of, load-data',
      '#for u in children(load-data(), tag: "u").map(text-of) {',
      '  let p = asset(u)',
      '  [Path: #if p == none { "none" } else { p }]',
      '  parbreak()',
      '  image-or-none(u, width: 2cm)',
      '}',
    ].join('\n');
    await putFile(t, acme.admin, 'tenants/acme/projects/shop/master-documents/assets.typ', template);
    const ok = `${cdn.base}/tpl/ok.png`;
    const missing = `${cdn.base}/tpl/missing.png`;
    const r = await render(`<data><u>${ok}</u><u>${missing}</u></data>`, { query: 'documentTemplate=assets' });
    const path = `/assets/${createHash('sha256').update(ok).digest('hex')}.png`;
    assert.match(r.text, new RegExp(`Path: ${path}`));
    assert.match(r.text, /Path: none/);
    assert.equal(await pdfImageCount(r.pdf, 0), 1);
    assert.deepEqual(r.status.messages, [`asset ${missing} not available: HTTP 404`]);
    assert.match(r.log, new RegExp(`WARN  asset ${missing} not available: HTTP 404`));
  });

  it('takes image URLs without an extension from fields named like images, in JSON too', async () => {
    cdn.route('/render', serve(tinyPng(80, 40), png));
    cdn.route('/page', serve(Buffer.from('<html></html>'), { 'content-type': 'text/html' }));
    const body = JSON.stringify({ products: [{ name: 'Lamp', logo: `${cdn.base}/render?id=7`, homepage: `${cdn.base}/page` }] });
    const r = await render(body, { contentType: 'application/json' });
    assert.equal(await pdfImageCount(r.pdf, 0), 1);
    assert.equal(cdn.count('/page'), 0, 'a URL in a field not named like an image, without an image extension, is not fetched');
    assert.match(r.text, /\/page/);
  });

  it('adds downloadRequests, downloadBytes, downloadMsec and cacheHits to the statistics', async () => {
    const media = await setupProject(t, 'acme', 'media');
    const images = [tinyPng(33, 20), tinyPng(34, 20)];
    images.forEach((img, i) => cdn.route(`/stats/${i}.png`, serve(img, { ...png, 'cache-control': 'max-age=3600' })));
    const body = sheet(`${cdn.base}/stats/0.png`, `${cdn.base}/stats/1.png`);
    const first = counters((await render(body, { project: 'media', token: media.jobs })).log);
    await render(body, { project: 'media', token: media.jobs });
    const res = await t.fetch('/rest/statistics/tenants/acme/projects/media?unit=year', { token: media.admin });
    assert.equal(res.status, 200, await res.clone().text());
    const [year] = (await res.json()) as Record<string, number>[];
    assert.deepEqual(
      { downloadRequests: year!.downloadRequests, downloadBytes: year!.downloadBytes, downloadMsec: year!.downloadMsec, cacheHits: year!.cacheHits },
      { downloadRequests: 2, downloadBytes: images[0]!.length + images[1]!.length, downloadMsec: first.msec, cacheHits: 2 },
    );
  });
});
