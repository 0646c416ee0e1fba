import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, it } from 'node:test';
import { repoFiles } from '../src/store/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const P = 'tenants/acme/projects/shop';

/** Rows and blobs as stored, to prove a refused request changed nothing. */
async function snapshot(t: TestServer): Promise<string> {
  const rows = await repoFiles.listRepoFiles(t.server.ctx.db.kysely, '');
  const blobs = await t.server.ctx.blobs.list('repo/');
  return JSON.stringify({ rows: rows.map((r) => [r.path, r.sha256, r.updated]), blobs });
}

/** A request with the path sent exactly as written (fetch would normalise `..`). */
function rawRequest(t: TestServer, method: string, path: string, token: string, body?: string): Promise<{ status: number; body: string }> {
  const url = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers: { authorization: `Bearer ${token}`, accept: 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describeEachStore('repository files', (kind) => {
  let t: TestServer;
  let op: string;
  let admin: string;
  let jobs: string;
  before(async () => {
    t = await startTestServer(kind);
    op = await t.operatorToken();
    for (const path of ['/rest/tenants?name=acme', '/rest/tenants/acme/projects?name=shop', '/rest/tenants/acme/projects?name=other']) {
      assert.equal((await t.fetch(path, { method: 'POST', token: op })).status, 200);
    }
    admin = await t.token('acme', 'shop', 'admin');
    jobs = await t.token('acme', 'shop', 'jobs');
  });
  after(() => t.close());

  const put = (path: string, body: string | Buffer, token = admin, headers: Record<string, string> = {}) =>
    t.fetch(`/rest/repository/files/${path}`, { method: 'PUT', token, body, headers: { 'content-type': 'application/octet-stream', ...headers } });

  it('stores, replaces, reads and deletes a file', async () => {
    const first = await put(`${P}/data/hello.json`, '{"a":1}', admin, { 'content-type': 'application/json' });
    assert.equal(first.status, 200);
    const written = (await first.json()) as Record<string, unknown>;
    assert.equal(written.path, `${P}/data/hello.json`);
    assert.equal(written.size, 7);
    assert.equal(written.created, true);
    assert.match(String(written.sha256), /^[0-9a-f]{64}$/);
    assert.ok(!Number.isNaN(Date.parse(String(written.updated))));

    const again = (await (await put(`${P}/data/hello.json`, '{"a":2}')).json()) as Record<string, unknown>;
    assert.equal(again.created, false);

    const read = await t.fetch(`/rest/repository/files/${P}/data/hello.json`, { token: admin, headers: { accept: '*/*' } });
    assert.equal(read.status, 200);
    assert.equal(read.headers.get('content-type'), 'application/json');
    assert.equal(await read.text(), '{"a":2}');
    const bin = await put(`${P}/data/blob.bin`, Buffer.from([0, 1, 2, 255]));
    assert.equal(bin.status, 200);
    const raw = await t.fetch(`/rest/repository/files/${P}/data/blob.bin`, { token: admin });
    assert.equal(raw.headers.get('content-type'), 'application/octet-stream');
    assert.deepEqual(Buffer.from(await raw.arrayBuffer()), Buffer.from([0, 1, 2, 255]));

    const del = await t.fetch(`/rest/repository/files/${P}/data/hello.json`, { method: 'DELETE', token: admin });
    assert.equal(del.status, 200);
    assert.deepEqual(await del.json(), { path: `${P}/data/hello.json`, deleted: true });
    assert.equal((await t.fetch(`/rest/repository/files/${P}/data/hello.json`, { token: admin })).status, 404);
    assert.equal((await t.fetch(`/rest/repository/files/${P}/data/hello.json`, { method: 'DELETE', token: admin })).status, 404);
  });

  it('keeps one blob per content and collects blobs nobody references', async () => {
    const blobs = () => t.server.ctx.blobs.list('repo/');
    const start = (await blobs()).length;
    await put(`${P}/gc/a.txt`, 'shared content');
    await put(`${P}/gc/b.txt`, 'shared content');
    assert.equal((await blobs()).length, start + 1, 'equal content shares one blob');
    await put(`${P}/gc/a.txt`, 'new content');
    assert.equal((await blobs()).length, start + 2, 'b still uses the shared blob');
    await t.fetch(`/rest/repository/files/${P}/gc/b.txt`, { method: 'DELETE', token: admin });
    assert.equal((await blobs()).length, start + 1, 'the shared blob went with its last file');
    await t.fetch(`/rest/repository/files/${P}/gc/a.txt`, { method: 'DELETE', token: admin });
    assert.equal((await blobs()).length, start);
  });

  it('refuses traversal, absolute, NUL, backslash and percent paths with 400 invalid_path, storing nothing', async () => {
    const before = await snapshot(t);
    const bad = [
      `/rest/repository/files/${P}/../../other/x.txt`,
      `/rest/repository/files/${P}/%2e%2e/%2e%2e/other/x.txt`,
      `/rest/repository/files/${P}/%252e%252e/x.txt`,
      `/rest/repository/files/%2Fetc%2Fpasswd`,
      `/rest/repository/files//etc/passwd`,
      `/rest/repository/files/${P}/a%00.txt`,
      `/rest/repository/files/${P}/..%5c..%5cx.txt`,
      `/rest/repository/files/${P}/./x.txt`,
      `/rest/repository/files/${P}//x.txt`,
      `/rest/repository/files/${P}/a%3Cb.txt`,
    ];
    for (const path of bad) {
      for (const token of [op, admin]) {
        const res = await rawRequest(t, 'PUT', path, token, 'x');
        assert.equal(res.status, 400, `${path}: ${res.body}`);
        const body = JSON.parse(res.body) as { code: string; message: string; details: unknown[] };
        assert.equal(body.code, 'invalid_path', path);
        assert.match(body.message, /invalid repository path/);
        assert.ok(body.details.length > 0);
      }
      assert.equal((await rawRequest(t, 'GET', path, op)).status, 400, path);
      assert.equal((await rawRequest(t, 'DELETE', path, op)).status, 400, path);
    }
    // An empty path is the bulk endpoint's URL, which takes POST only.
    assert.equal((await rawRequest(t, 'PUT', '/rest/repository/files/', op, 'x')).status, 405);
    assert.equal(await snapshot(t), before);
  });

  it('needs the tenant and project of a path to exist (404)', async () => {
    const before = await snapshot(t);
    assert.equal((await put('tenants/ghost/restapi/config.ion', '{}', op)).status, 404);
    assert.equal((await put('tenants/acme/projects/ghost/x.txt', 'x', op)).status, 404);
    assert.equal((await put('tenants/acme', 'x', op)).status, 400);
    assert.equal((await put('tenants/acme/projects/shop', 'x', op)).status, 400);
    assert.equal(await snapshot(t), before);
    assert.equal((await put('tenants/acme/restapi/config.ion', '{}', op)).status, 200);
    assert.equal((await put('master-documents/x.typ', '= Hi', op)).status, 200);
  });

  it('lets a project admin touch only its project folder, and a jobs token nothing (403)', async () => {
    await put(`${P}/own.txt`, 'mine');
    const before = await snapshot(t);
    for (const path of ['tenants/acme/projects/other/x.txt', 'tenants/acme/x.txt', 'restapi/config.ion', 'master-documents/x.typ']) {
      const res = await put(path, 'x');
      assert.equal(res.status, 403, path);
      assert.match(((await res.json()) as { message: string }).message, /only paths under tenants\/acme\/projects\/shop\//);
      assert.equal((await t.fetch(`/rest/repository/files/${path}`, { token: admin })).status, 403, path);
      assert.equal((await t.fetch(`/rest/repository/files/${path}`, { method: 'DELETE', token: admin })).status, 403, path);
    }
    for (const [method, body] of [['PUT', 'x'], ['GET', undefined], ['DELETE', undefined]] as const) {
      const res = await t.fetch(`/rest/repository/files/${P}/own.txt`, { method, token: jobs, ...(body ? { body } : {}) });
      assert.equal(res.status, 403, method);
    }
    assert.equal((await t.fetch('/rest/repository/tree', { token: jobs })).status, 403);
    assert.equal(await snapshot(t), before);
  });

  it('answers 401 without a token and 406 without Accept JSON on JSON answers', async () => {
    assert.equal((await fetch(`${t.url}/rest/repository/files/${P}/own.txt`, { method: 'PUT', body: 'x' })).status, 401);
    const res = await put(`${P}/own.txt`, 'x', admin, { accept: 'application/xml' });
    assert.equal(res.status, 406);
    // File content is not JSON, so its GET does not insist on Accept.
    const content = await fetch(`${t.url}/rest/repository/files/${P}/own.txt`, { headers: { authorization: `Bearer ${admin}` } });
    assert.equal(content.status, 200);
  });

  it('removes a deleted project’s files and the blobs only they used', async () => {
    assert.equal((await t.fetch('/rest/tenants/acme/projects?name=doomed', { method: 'POST', token: op })).status, 200);
    const D = 'tenants/acme/projects/doomed';
    await put(`${D}/only-here.txt`, 'doomed only', op);
    await put(`${D}/shared.txt`, 'shared with shop', op);
    await put(`${P}/shared.txt`, 'shared with shop', op);
    const blobsBefore = (await t.server.ctx.blobs.list('repo/')).length;
    assert.equal((await t.fetch('/rest/tenants/acme/projects/doomed', { method: 'DELETE', token: op })).status, 200);
    assert.deepEqual(await repoFiles.listRepoFiles(t.server.ctx.db.kysely, `${D}/`), []);
    assert.equal((await t.server.ctx.blobs.list('repo/')).length, blobsBefore - 1);
    assert.equal(await (await t.fetch(`/rest/repository/files/${P}/shared.txt`, { token: op })).text(), 'shared with shop');
  });

  it('stores an empty file', async () => {
    const res = await t.fetch(`/rest/repository/files/${P}/empty.txt`, { method: 'PUT', token: admin });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { size: number }).size, 0);
    assert.equal(await (await t.fetch(`/rest/repository/files/${P}/empty.txt`, { token: admin })).text(), '');
  });
});

describeEachStore('repository files with a small body limit', (kind) => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(kind, { bodyLimit: 2048 });
  });
  after(() => t.close());

  it('refuses a body over the limit with 413 and stores nothing', async () => {
    const op = await t.operatorToken();
    const before = await snapshot(t);
    const res = await t.fetch('/rest/repository/files/big.bin', { method: 'PUT', token: op, body: Buffer.alloc(4096, 1), headers: { 'content-type': 'application/octet-stream' } });
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { code: string }).code, 'payload_too_large');
    assert.equal(await snapshot(t), before);
    assert.equal((await t.fetch('/rest/repository/files/small.bin', { method: 'PUT', token: op, body: Buffer.alloc(1024, 1) })).status, 200);
  });
});
