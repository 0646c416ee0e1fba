import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startReceiver, type Receiver, type Reply } from './helpers/receiver.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const grid = '<data><item id="A-1"><title>Espresso machine</title></item></data>';
const P = 'tenants/acme/projects/shop';

describeEachStore('webhooks: upload export parameters', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  let r: Receiver;
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50, allowPrivateAddresses: ['127.0.0.1'] });
    tokens = await setupProject(t);
    r = await startReceiver((req): Reply => {
      if (req.url.startsWith('/json/')) {
        return {
          status: 201,
          headers: { Location: '/files/F-77', 'X-Asset-Id': 'A-9', 'content-type': 'application/json' },
          body: JSON.stringify({ data: { items: [{ id: 'first' }, { id: 'second' }] }, 'weird key': 'w', ok: true }),
        };
      }
      if (req.url.startsWith('/xml/')) return { headers: { 'content-type': 'application/xml' }, body: '<result><media id="m-1"><url>https://cdn.example/y.pdf</url></media></result>' };
      if (req.url.startsWith('/evil/')) return { headers: { 'content-type': 'application/xml' }, body: '<!DOCTYPE r [<!ENTITY a "expanded">]><r><v>&a;</v></r>' };
      return {};
    });
  });
  after(async () => {
    await r.close();
    await t.close();
  });

  it('reads headers, jsonBody and xmlBody values and uses them in later callback URLs, payloads and default bodies', async () => {
    await putFile(
      t,
      tokens.admin,
      `${P}/upload/config.ion`,
      `{ connections: [
        { url: "${r.url}/json/", exportParams: [
            { name: "assetId", path: "x-ASSET-id" },
            { name: "fileId", source: headers, path: "substring-after(location, '/files/')" },
            { name: "second", source: jsonBody, path: "data/items[2]/id" },
            { name: "firstAbs", source: jsonBody, path: "/json/data/items[1]/id" },
            { name: "count", source: jsonBody, path: "count(data/items)" },
            { name: "weird", source: jsonBody, path: "_[@name='weird key']" },
            { name: "flag", source: jsonBody, path: "ok" } ] },
        { url: "${r.url}/xml/", exportParams: [
            { name: "mediaId", source: xmlBody, path: "media/@id" },
            { name: "mediaUrl", source: xmlBody, path: "/result/media/url" } ] } ] }`,
    );
    await putFile(
      t,
      tokens.admin,
      `${P}/callback/config.ion`,
      `{ connections: [ { url: "${r.url}/cb/custom/", payload: [ { value: "{\\"n\\":\\"{count}\\",\\"media\\":\\"\${mediaUrl}\\"}" } ] } ] }`,
    );
    const upload = `${r.url}/json/{ticket} ${r.url}/xml/{ticket}`;
    const callback = `${r.url}/cb/default?a={assetId}&f={fileId}&s={second}&m={mediaId} ${r.url}/cb/custom/x`;
    const [id] = await submit(t, tokens.jobs, grid, { query: new URLSearchParams({ upload, callback }).toString() });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'callback.succeeded', JSON.stringify(s));
    assert.deepEqual(s.messages, []);
    const [, , first, second] = r.requests;
    assert.equal(first!.url, '/cb/default?a=A-9&f=F-77&s=second&m=m-1');
    const body = JSON.parse(first!.body.toString()) as Record<string, string>;
    assert.deepEqual(
      { assetId: body.assetId, fileId: body.fileId, second: body.second, firstAbs: body.firstAbs, count: body.count, weird: body.weird, flag: body.flag, mediaId: body.mediaId, mediaUrl: body.mediaUrl },
      { assetId: 'A-9', fileId: 'F-77', second: 'second', firstAbs: 'first', count: '2', weird: 'w', flag: 'true', mediaId: 'm-1', mediaUrl: 'https://cdn.example/y.pdf' },
      'export parameters are top-level fields of the default body',
    );
    assert.equal(body.ticket, id);
    assert.deepEqual(JSON.parse(second!.body.toString()), { n: '2', media: 'https://cdn.example/y.pdf' });
  });

  it('refuses a DOCTYPE in response XML and says so; the upload itself still counts', async () => {
    await putFile(
      t,
      tokens.admin,
      `${P}/upload/config.ion`,
      `{ connections: [ { url: "${r.url}/evil/", exportParams: [ { name: "v", source: xmlBody, path: "v" }, { name: "missing", path: "x-nothing" } ] } ] }`,
    );
    r.requests.length = 0;
    const [id] = await submit(t, tokens.jobs, grid, { query: new URLSearchParams({ upload: `${r.url}/evil/{ticket}`, callback: `${r.url}/cb/after?v={v}` }).toString() });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'callback.succeeded', JSON.stringify(s));
    assert.equal(s.messages.length, 2, JSON.stringify(s.messages));
    assert.match(s.messages[0]!, /^exportParams v: xmlBody v could not be read \(the response declares a DOCTYPE/);
    assert.equal(s.messages[1], 'exportParams missing: headers x-nothing matched nothing');
    assert.equal(r.requests[1]!.url, '/cb/after?v={v}', 'an unknown placeholder stays as written');
  });
});
