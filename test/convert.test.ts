import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { assertConvert400, download, pagesQuery, pagesTemplate, putPagesTemplate, renderAndWait, ticketCount, zipEntries } from './helpers/convert.js';
import { decodeImage, near } from './helpers/image-pixels.js';
import { imageFormat, imageSize } from './helpers/image-size.js';
import { pdfPageCount } from './helpers/pdf.js';
import { putFile, setupProject } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

describeEachStore('convert: PDF pages to PNG, JPEG and pageset ZIPs', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  const base = '/rest/tenants/acme/projects/shop';
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 });
    tokens = await setupProject(t);
    await putPagesTemplate(t, tokens.admin);
  });
  after(() => t.close());

  const artifact = (id: string, accept: string) => download(t, tokens.jobs, `${base}/tickets/${id}/artifact`, accept);
  const storage = (name: string) => download(t, tokens.jobs, `${base}/storage/${name}?shipped=false`, '*/*');

  it('converts page 1 to PNG at 150 dpi by default (A4: 1240 × 1754); the PDF stays beside it', async () => {
    const { id, status } = await renderAndWait(t, tokens.jobs, pagesQuery('f=png', 3));
    assert.equal(status.status, 'convert.succeeded', JSON.stringify(status));
    assert.equal(status.outputName, `${id}.png`);
    assert.ok(status.processingMsecs > 0);
    assert.ok(status.messages.some((m) => /convert: page 1 to png at 150 dpi, 1240×1754 pixels/.test(m)), status.messages.join('\n'));

    for (const accept of ['image/png', 'image/*', '*/*']) {
      const png = await artifact(id, accept);
      assert.equal(png.status, 200, accept);
      assert.equal(png.type, 'image/png');
      assert.equal(imageFormat(png.body), 'png');
      assert.deepEqual(imageSize(png.body), { width: 1240, height: 1754 });
    }
    const pdf = await artifact(id, 'application/pdf');
    assert.equal(pdf.type, 'application/pdf');
    assert.equal(await pdfPageCount(pdf.body), 3, 'the whole PDF is still there');
    assert.equal((await artifact(id, 'image/jpeg')).status, 404);
    const all = await artifact(id, 'application/zip');
    assert.deepEqual([...(await zipEntries(all.body)).keys()].filter((n) => !n.endsWith('.log') && !n.endsWith('.xml')), [`${id}.pdf`, `${id}.png`]);

    const stored = await storage(`${id}.png`);
    assert.equal(stored.status, 200);
    assert.equal(stored.type, 'application/octet-stream', 'storage serves every extension but pdf as octet-stream');
    assert.deepEqual(imageSize(stored.body), { width: 1240, height: 1754 });
    assert.equal((await storage(`${id}.pdf`)).type, 'application/pdf');
  });

  it('converts the requested page to JPEG at the requested resolution', async () => {
    const { id, status } = await renderAndWait(t, tokens.jobs, pagesQuery('format=jpg;resolution=72;page=2;quality=50', 3));
    assert.equal(status.status, 'convert.succeeded', JSON.stringify(status));
    assert.equal(status.outputName, `${id}.jpg`);
    const jpg = await artifact(id, 'image/jpeg');
    assert.equal(jpg.type, 'image/jpeg');
    assert.equal(imageFormat(jpg.body), 'jpeg');
    assert.deepEqual(imageSize(jpg.body), { width: 595, height: 842 });
    const stored = await storage(`${id}.jpg`);
    assert.equal(stored.type, 'application/octet-stream');
    assert.ok(stored.body.equals(jpg.body));
    assert.equal((await artifact(id, 'image/png')).status, 404);
  });

  it('converts a pageset into a ZIP of page images, named <ticket>-<page>, in page order', async () => {
    const { id, status } = await renderAndWait(t, tokens.jobs, pagesQuery('f=png;r=36;ps=1,3-n', 4));
    assert.equal(status.status, 'convert.succeeded', JSON.stringify(status));
    assert.equal(status.outputName, `${id}.zip`);
    assert.ok(status.messages.some((m) => /convert: 3 page\(s\) of 4 to png at 36 dpi/.test(m)), status.messages.join('\n'));
    const zip = await artifact(id, 'application/zip');
    assert.equal(zip.type, 'application/zip');
    const entries = await zipEntries(zip.body);
    assert.deepEqual([...entries.keys()], [`${id}-1.png`, `${id}-3.png`, `${id}-4.png`]);
    for (const png of entries.values()) {
      assert.equal(imageFormat(png), 'png');
      assert.deepEqual(imageSize(png), { width: 298, height: 421 });
    }
    const stored = await storage(`${id}.zip`);
    assert.equal(stored.type, 'application/octet-stream');
    assert.ok(stored.body.equals(zip.body));

    const jpgs = await renderAndWait(t, tokens.jobs, pagesQuery('f=jpeg;r=36;ps=all', 2));
    const jpgZip = await zipEntries((await artifact(jpgs.id, '*/*')).body);
    assert.deepEqual([...jpgZip.keys()], [`${jpgs.id}-1.jpg`, `${jpgs.id}-2.jpg`]);
    for (const jpg of jpgZip.values()) assert.equal(imageFormat(jpg), 'jpeg');
  });

  it('answers synchronous requests with the image or the ZIP itself', async () => {
    const sync = (convert: string, accept: string, pages = 1) =>
      t.fetch(`${base}/renderpdf?timeToWait=60000&${pagesQuery(convert, pages)}`, { method: 'POST', token: tokens.jobs, body: '<data/>', headers: { 'content-type': 'application/xml', accept } });

    const png = await sync('f=png', 'image/png');
    assert.equal(png.status, 200, png.status === 200 ? '' : await png.text());
    assert.equal(png.headers.get('content-type'), 'image/png');
    const id = png.headers.get('x-ticket-id')!;
    assert.match(png.headers.get('content-disposition')!, new RegExp(`${id}\\.png`));
    assert.deepEqual(imageSize(Buffer.from(await png.arrayBuffer())), { width: 1240, height: 1754 });

    const jpg = await sync('f=jpg;r=50', 'image/*');
    assert.equal(jpg.status, 200);
    assert.equal(jpg.headers.get('content-type'), 'image/jpeg');
    const jpgBody = Buffer.from(await jpg.arrayBuffer());
    assert.equal(imageFormat(jpgBody), 'jpeg');
    assert.deepEqual(imageSize(jpgBody), { width: 413, height: 585 });

    const zip = await sync('f=png;r=20;ps=all', 'application/zip', 2);
    assert.equal(zip.status, 200);
    assert.equal(zip.headers.get('content-type'), 'application/zip');
    assert.equal((await zipEntries(Buffer.from(await zip.arrayBuffer()))).size, 2);

    // Accept must allow what the conversion produces; nothing is stored otherwise.
    const before = await ticketCount(t);
    for (const [convert, accept] of [['f=png', 'application/pdf'], ['f=png;ps=all', 'image/*'], ['f=jpg', 'image/png']] as const) {
      const res = await sync(convert, accept);
      assert.equal(res.status, 406, `${convert} with ${accept}`);
      assert.match(((await res.json()) as { message: string }).message, /convert/);
    }
    assert.equal(await ticketCount(t), before);
    const noConvert = await sync('', 'image/png');
    assert.equal(noConvert.status, 406, 'without convert the answer is a PDF');
    await noConvert.arrayBuffer();
  });

  it('answers decodable PNG and JPEG images of the page: pixel size, resolution and colours', async () => {
    // Four quadrants: crimson, dodger blue, forest green and the white page.
    const swatches = `#set page(paper: "a4", margin: 0pt)
#place(top + left, rect(width: 50%, height: 50%, fill: rgb(220, 20, 60)))
#place(top + right, rect(width: 50%, height: 50%, fill: rgb(30, 144, 255)))
#place(bottom + left, rect(width: 50%, height: 50%, fill: rgb(34, 139, 34)))
`;
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/swatches.typ', swatches);
    const quadrants = [
      [0.25, 0.25, [220, 20, 60]],
      [0.75, 0.25, [30, 144, 255]],
      [0.25, 0.75, [34, 139, 34]],
      [0.75, 0.75, [255, 255, 255]],
    ] as const;
    for (const [convert, accept, size, dpi, tolerance] of [
      ['f=png', 'image/png', [1240, 1754], 150, 2],
      ['f=png;r=72', 'image/png', [595, 842], 72, 2],
      ['f=jpg', 'image/jpeg', [1240, 1754], 150, 6],
      ['f=jpg;r=96;q=95', 'image/jpeg', [794, 1123], 96, 4],
      ['f=jpg;r=72;q=0', 'image/jpeg', [595, 842], 72, 40],
    ] as const) {
      const res = await t.fetch(`${base}/renderpdf?timeToWait=60000&documentTemplate=swatches&convert=${encodeURIComponent(convert)}`, {
        method: 'POST',
        token: tokens.jobs,
        body: '<data/>',
        headers: { 'content-type': 'application/xml', accept },
      });
      assert.equal(res.status, 200, res.status === 200 ? '' : await res.text());
      assert.equal(res.headers.get('content-type'), accept);
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(imageFormat(body), accept === 'image/png' ? 'png' : 'jpeg', convert);
      const image = decodeImage(body);
      assert.deepEqual([image.width, image.height], size, convert);
      assert.deepEqual([image.xdpi, image.ydpi], [dpi, dpi], `${convert}: resolution recorded in the file`);
      for (const [fx, fy, colour] of quadrants) {
        const x = Math.floor(fx * image.width);
        const y = Math.floor(fy * image.height);
        assert.ok(near(image.rgb(x, y), colour, tolerance), `${convert}: (${x}, ${y}) is ${image.rgb(x, y).join(',')}, expected about ${colour.join(',')}`);
      }
      // A quadrant edge stays sharp in PNG: no colour of its own between two swatches.
      if (accept === 'image/png') assert.ok(near(image.rgb(Math.floor(image.width / 2) - 2, 10), quadrants[0][2], tolerance), convert);
    }
  });

  it('takes convert from restapi/config.ion; the query overrides it and an empty query switches it off', async () => {
    const { jobs, admin } = await setupProject(t, 'acme', 'conf');
    await putFile(t, admin, 'tenants/acme/projects/conf/master-documents/pages.typ', pagesTemplate);
    await putFile(t, admin, 'tenants/acme/projects/conf/restapi/config.ion', '{ convert: "f=jpg;r=36" }');
    const configured = await renderAndWait(t, jobs, pagesQuery(undefined), 'conf');
    assert.equal(configured.status.outputName, `${configured.id}.jpg`);
    const overridden = await renderAndWait(t, jobs, pagesQuery('f=png;r=36;ps=all', 2), 'conf');
    assert.equal(overridden.status.outputName, `${overridden.id}.zip`);
    const off = await renderAndWait(t, jobs, pagesQuery(''), 'conf');
    assert.equal(off.status.status, 'renderpdf.succeeded');
    assert.equal(off.status.outputName, `${off.id}.pdf`);

    await putFile(t, admin, 'tenants/acme/projects/conf/restapi/config.ion', '{ convert: "f=tiff" }');
    const res = await t.fetch('/rest/tenants/acme/projects/conf/renderpdf', { method: 'POST', token: jobs, body: '<data/>', headers: { 'content-type': 'application/xml' } });
    await assertConvert400(res, /format "tiff" is not supported; use png or jpg \(from restapi\/config\.ion\)/);
  });
});
