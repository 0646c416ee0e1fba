import assert from 'node:assert/strict';
import { after, before, beforeEach, it } from 'node:test';
import { artifactPdf, putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startReceiver, type Receiver, type Reply } from './helpers/receiver.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const grid = '<data><item id="A-1"><title>Espresso machine</title></item></data>';
const P = 'tenants/acme/projects/shop';
const headerNames = (raw: string[]) => raw.filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());

describeEachStore('webhooks: request shapes', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  let r: Receiver;
  let reply: (path: string) => Reply = () => ({});
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50, allowPrivateAddresses: ['127.0.0.1'] });
    tokens = await setupProject(t);
    r = await startReceiver((req) => reply(req.url));
  });
  after(async () => {
    await r.close();
    await t.close();
  });
  beforeEach(async () => {
    r.requests.length = 0;
    reply = () => ({});
    for (const step of ['upload', 'callback', 'error']) await putFile(t, tokens.admin, `${P}/${step}/config.ion`, '{}');
  });

  it('sends the default upload (PUT, chunked) and the default callback (POST JSON, every field), in that order', async () => {
    const query = new URLSearchParams({ upload: `${r.url}/files/{ticket}.pdf`, callback: `${r.url}/done?t={ticket}&loc={location}&o={outputType}&p=${'$'}{tenant}/{project}&u={user}&at={timestamp}`, foreignKey: 'order 7' });
    query.append('custom', 'batch:b-1');
    query.append('custom', 'note:a "quoted" & spaced');
    const [id] = await submit(t, tokens.jobs, grid, { query: query.toString() });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'callback.succeeded', JSON.stringify(s));
    assert.deepEqual(s.messages, []);
    assert.equal((s as unknown as { shipped: boolean }).shipped, true, 'a 2xx upload ships the output');
    assert.equal(r.requests.length, 2);
    const [up, cb] = r.requests;

    assert.equal(up!.method, 'PUT');
    assert.equal(up!.url, `/files/${id}.pdf`);
    assert.deepEqual(headerNames(up!.rawHeaders), ['host', 'connection', 'user-agent', 'content-type', 'transfer-encoding']);
    assert.equal(up!.headers['transfer-encoding'], 'chunked');
    assert.equal(up!.headers['content-length'], undefined);
    assert.equal(up!.headers['content-type'], 'application/octet-stream');
    assert.match(up!.headers['user-agent']!, /service-upload/);
    assert.ok(up!.body.equals(await artifactPdf(t, tokens.jobs, id!)), 'the body is the output, byte for byte');

    assert.equal(cb!.method, 'POST');
    const location = `/rest/tenants/acme/projects/shop/storage/${id}.pdf`;
    const body0 = JSON.parse(cb!.body.toString()) as Record<string, string>;
    assert.equal(cb!.url, `/done?t=${id}&loc=${encodeURIComponent(location)}&o=pdf&p=acme/shop&u=admin&at=${body0.timestamp}`);
    assert.deepEqual(headerNames(cb!.rawHeaders), ['host', 'connection', 'user-agent', 'content-type', 'content-length']);
    assert.equal(cb!.headers['content-type'], 'application/json');
    assert.match(cb!.headers['user-agent']!, /service-callback/);
    assert.equal(cb!.headers['content-length'], String(cb!.body.length));
    const body = JSON.parse(cb!.body.toString()) as Record<string, string>;
    assert.match(body.dateTime!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
    assert.match(body.timestamp!, /^\d{13}$/);
    assert.equal(new Date(body.dateTime!).getTime(), Number(body.timestamp));
    const expected = {
      batch: 'b-1',
      note: 'a "quoted" & spaced',
      tenant: 'acme',
      project: 'shop',
      user: 'admin',
      ticket: id,
      outputType: 'pdf',
      foreignKey: 'order 7',
      location,
      dateTime: body.dateTime,
      timestamp: body.timestamp,
    };
    assert.equal(cb!.body.toString(), JSON.stringify(expected), 'byte-exact body, fields in contract order');
  });

  it('sends a configured upload: method, API key, Content-Length instead of chunks', async () => {
    await putFile(
      t,
      tokens.admin,
      `${P}/upload/config.ion`,
      `{ connections: [ { url: "${r.url}/api/", method: POST, "use-chunked-transfer": false, authentication: { type: ApiKey, key: "X-Api-Key", value: "k-123" } } ] }`,
    );
    const [id] = await submit(t, tokens.jobs, grid, { query: `upload=${encodeURIComponent(`${r.url}/api/store?name={ticket}`)}` });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'upload.succeeded', JSON.stringify(s));
    const [up] = r.requests;
    assert.equal(up!.method, 'POST');
    assert.equal(up!.url, `/api/store?name=${id}`);
    assert.deepEqual(headerNames(up!.rawHeaders), ['host', 'connection', 'user-agent', 'content-type', 'x-api-key', 'content-length']);
    assert.equal(up!.headers['x-api-key'], 'k-123');
    assert.equal(up!.headers['transfer-encoding'], undefined);
    assert.equal(up!.headers['content-length'], String(up!.body.length));
    assert.equal(up!.headers['content-type'], 'application/octet-stream');
    assert.ok(up!.body.equals(await artifactPdf(t, tokens.jobs, id!)));
    // Counted in the statistics (this suite uploaded before too, so at least this one).
    const stats = (await (await t.fetch('/rest/statistics/tenants/acme/projects/shop?unit=hour', { token: tokens.admin })).json()) as { uploadRequests: number; uploadBytes: number; uploadMsec: number }[];
    assert.equal(stats.length, 1);
    assert.ok(stats[0]!.uploadRequests >= 1);
    assert.ok(stats[0]!.uploadBytes >= up!.body.length);
  });

  it('processes several URLs in order, each with the connection of its longest matching prefix', async () => {
    await putFile(
      t,
      tokens.admin,
      `${P}/callback/config.ion`,
      `{ connections: [
          { url: "${r.url}/hooks/", method: PUT },
          { url: "${r.url}/hooks/special/", method: PATCH, headers: { "X-Route": "special {ticket}" } },
          { url: "${r.url}/hook", method: DELETE } ] }`,
    );
    const urls = [`${r.url}/hooks/special/1`, `${r.url}/nomatch/2`, `${r.url}/hooks/3`, `${r.url}/hookless/4`];
    const [id] = await submit(t, tokens.jobs, grid, { query: `callback=${encodeURIComponent(urls.join('  \n '))}` });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'callback.succeeded', JSON.stringify(s));
    assert.deepEqual(
      r.requests.map((q) => `${q.method} ${q.url}`),
      ['PATCH /hooks/special/1', 'POST /nomatch/2', 'PUT /hooks/3', 'DELETE /hookless/4'],
    );
    assert.equal(r.requests[0]!.headers['x-route'], `special ${id}`);
    assert.equal(r.requests[1]!.headers['x-route'], undefined);
  });

  it('fills a configured payload: {name} and ${name}, custom parameters, JSON and XML escaping', async () => {
    await putFile(
      t,
      tokens.admin,
      `${P}/callback/config.ion`,
      `{ connections: [
          { url: "${r.url}/json", payload: [ { value: "{\\"id\\":\\"{ticket}\\",\\"fk\\":\\"\${foreignKey}\\"," }, { value: "\\"note\\":\\"{note}\\",\\"at\\":\\"{location}\\",\\"keep\\":\\"{unknown}\\"}" } ] },
          { url: "${r.url}/xml", headers: { "Content-Type": "application/xml" }, payload: [ { value: "<done ticket=\\"{ticket}\\" tenant=\\"{tenant}\\">{note}</done>" } ] } ] }`,
    );
    const query = new URLSearchParams({ callback: `${r.url}/json ${r.url}/xml`, foreignKey: 'fk"1' });
    query.append('custom', 'note:<a & "b">');
    const [id] = await submit(t, tokens.jobs, grid, { query: query.toString() });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'callback.succeeded', JSON.stringify(s));
    const [json, xml] = r.requests;
    assert.equal(json!.headers['content-type'], 'application/json');
    assert.deepEqual(JSON.parse(json!.body.toString()), { id, fk: 'fk"1', note: '<a & "b">', at: `/rest/tenants/acme/projects/shop/storage/${id}.pdf`, keep: '{unknown}' });
    assert.equal(xml!.headers['content-type'], 'application/xml');
    assert.equal(xml!.body.toString(), `<done ticket="${id}" tenant="acme">&lt;a &amp; &quot;b&quot;&gt;</done>`);
  });

  it('reports a terminal failure to the error URL: POST JSON with errorMessage, {errorCode} and {errorMessage} percent-encoded', async () => {
    await putFile(t, tokens.admin, `${P}/master-documents/broken.typ`, '#panic("boom & bust")\n');
    const errorUrl = `${r.url}/err/{ticket}/{errorCode}?m={errorMessage}&fk={foreignKey}`;
    const [id] = await submit(t, tokens.jobs, grid, { query: `documentTemplate=broken&foreignKey=a/b&error=${encodeURIComponent(errorUrl)}&callback=${encodeURIComponent(`${r.url}/never`)}` });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'error.succeeded', JSON.stringify(s));
    assert.equal(s.errorCode, '422', 'the failure that was reported stays on the ticket');
    assert.equal(r.requests.length, 1, 'no callback for a failed job');
    const [err] = r.requests;
    assert.equal(err!.method, 'POST');
    assert.equal(err!.url, `/err/${id}/422?m=${encodeURIComponent(s.errorMessage!)}&fk=a%2Fb`);
    assert.match(s.errorMessage!, /boom & bust/);
    assert.match(err!.headers['user-agent']!, /service-error/);
    assert.equal(err!.headers['content-type'], 'application/json');
    const body = JSON.parse(err!.body.toString()) as Record<string, string>;
    assert.deepEqual(Object.keys(body), ['tenant', 'project', 'user', 'ticket', 'outputType', 'foreignKey', 'errorMessage', 'dateTime', 'timestamp']);
    assert.equal(body.errorMessage, s.errorMessage);
    assert.equal(body.ticket, id);
    assert.equal(body.foreignKey, 'a/b');
  });

  it('fills ${errorMessage} in a configured error payload, JSON-escaped', async () => {
    await putFile(t, tokens.admin, `${P}/master-documents/broken.typ`, '#panic("say \\"no\\"")\n');
    await putFile(t, tokens.admin, `${P}/error/config.ion`, `{ connections: [ { url: "${r.url}/", payload: [ { value: "{\\"text\\":\\"\${errorMessage}\\",\\"code\\":\\"{errorCode}\\"}" } ] } ] }`);
    const [id] = await submit(t, tokens.jobs, grid, { query: `documentTemplate=broken&error=${encodeURIComponent(`${r.url}/e`)}` });
    const s = await waitComplete(t, tokens.jobs, id!);
    assert.equal(s.status, 'error.succeeded', JSON.stringify(s));
    const body = JSON.parse(r.requests[0]!.body.toString()) as Record<string, string>;
    assert.equal(body.text, s.errorMessage);
    assert.match(body.text!, /say \\"no\\"/, 'quotes and backslashes of the message survive JSON escaping');
    assert.equal(body.code, '422');
  });
});
