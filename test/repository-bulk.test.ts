import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { repoFiles } from '../src/store/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const P = 'tenants/acme/projects/shop';

async function snapshot(t: TestServer): Promise<string> {
  const rows = await repoFiles.listRepoFiles(t.server.ctx.db.kysely, '');
  const blobs = await t.server.ctx.blobs.list('repo/');
  return JSON.stringify({ rows: rows.map((r) => [r.path, r.sha256, r.updated]), blobs });
}

interface ErrorBody {
  code: string;
  message: string;
  details: { field?: string; message: string }[];
}

describeEachStore('repository bulk commit', (kind) => {
  let t: TestServer;
  let admin: string;
  before(async () => {
    t = await startTestServer(kind);
    const op = await t.operatorToken();
    for (const path of ['/rest/tenants?name=acme', '/rest/tenants/acme/projects?name=shop', '/rest/tenants/acme/projects?name=other']) {
      assert.equal((await t.fetch(path, { method: 'POST', token: op })).status, 200);
    }
    admin = await t.token('acme', 'shop', 'admin');
  });
  after(() => t.close());

  const bulk = (ops: unknown, token = admin, headers: Record<string, string> = { 'content-type': 'application/json' }) =>
    t.fetch('/rest/repository/files', { method: 'POST', token, body: typeof ops === 'string' ? ops : JSON.stringify(ops), headers });

  it('runs PUT, GET, PATCH and DELETE in order and answers one result per path', async () => {
    const res = await bulk([
      { action: 'PUT', paths: [`${P}/a.txt`, `${P}/b.txt`], value: 'hello' },
      { action: 'PUT', paths: [`${P}/bin.dat`], value: Buffer.from([0xff, 0x00, 0xfe]).toString('base64'), encoding: 'base64' },
      { action: 'GET', paths: [`${P}/a.txt`, `${P}/bin.dat`] },
      { action: 'PATCH', paths: [`${P}/restapi/config.ion`], patch: { callbackUrl: 'https://example.com/cb', 'fanout.enabled': true } },
      { action: 'DELETE', paths: [`${P}/b.txt`] },
    ]);
    assert.equal(res.status, 200, await res.clone().text());
    const { results } = (await res.json()) as { results: Record<string, unknown>[] };
    assert.deepEqual(
      results.map((r) => [r.index, r.action, r.path, r.status]),
      [
        [0, 'PUT', `${P}/a.txt`, 200],
        [0, 'PUT', `${P}/b.txt`, 200],
        [1, 'PUT', `${P}/bin.dat`, 200],
        [2, 'GET', `${P}/a.txt`, 200],
        [2, 'GET', `${P}/bin.dat`, 200],
        [3, 'PATCH', `${P}/restapi/config.ion`, 200],
        [4, 'DELETE', `${P}/b.txt`, 200],
      ],
    );
    assert.equal(results[0]!.created, true);
    assert.deepEqual([results[3]!.encoding, results[3]!.value], ['utf8', 'hello']);
    assert.deepEqual([results[4]!.encoding, results[4]!.value], ['base64', '/wD+']);
    assert.equal(results[6]!.deleted, true);
    assert.equal((await t.fetch(`/rest/repository/files/${P}/b.txt`, { token: admin })).status, 404);

    const patch2 = await bulk([{ action: 'PATCH', paths: [`${P}/restapi/config.ion`], patch: { fanout: { rootPath: '/data/item' }, callbackUrl: null } }]);
    assert.equal(patch2.status, 200, await patch2.clone().text());
    const [again] = ((await patch2.json()) as { results: Record<string, unknown>[] }).results;
    assert.equal(again!.created, false);
    const text = await (await t.fetch(`/rest/repository/files/${P}/restapi/config.ion`, { token: admin })).text();
    assert.deepEqual(JSON.parse(text), { fanout: { enabled: true, rootPath: '/data/item' } });
  });

  it('changes nothing when any operation fails, and names the operation', async () => {
    await bulk([{ action: 'PUT', paths: [`${P}/keep.txt`], value: 'keep' }]);
    const before = await snapshot(t);
    const cases: [unknown[], number, string, RegExp][] = [
      [[{ action: 'PUT', paths: [`${P}/new.txt`], value: 'x' }, { action: 'DELETE', paths: [`${P}/missing.txt`] }], 404, 'not_found', /^\[1\] tenants\/acme\/projects\/shop\/missing.txt$/],
      [[{ action: 'DELETE', paths: [`${P}/keep.txt`] }, { action: 'PUT', paths: ['tenants/acme/projects/other/x.txt'], value: 'x' }], 403, 'forbidden', /^\[1\] /],
      [[{ action: 'PUT', paths: [`${P}/new.txt`], value: 'x' }, { action: 'PUT', paths: [`${P}/../x.txt`], value: 'x' }], 400, 'invalid_path', /^\[1\] /],
      [[{ action: 'PUT', paths: [`${P}/new.txt`], value: 'x' }, { action: 'PUT', paths: [`${P}/restapi/config.ion`], value: '{ keepInputForSeconds: 5 }' }], 400, 'invalid_config', /^\[1\] .*config\.ion$/],
      [[{ action: 'PATCH', paths: [`${P}/restapi/config.ion`], patch: { fanout: { enabeld: true } } }], 400, 'invalid_config', /^\[0\] /],
      [[{ action: 'PATCH', paths: [`${P}/keep.txt`], patch: { a: 1 } }], 400, 'bad_request', /^\[0\] /],
      [[{ action: 'PUT', paths: [`${P}/x.ion`], value: '{ broken' }], 400, 'invalid_config', /^\[0\] /],
      [[{ action: 'PUT', paths: [`${P}/new.txt`] }], 400, 'bad_request', /^\[0\] /],
    ];
    for (const [ops, status, code, field] of cases) {
      const res = await bulk(ops);
      assert.equal(res.status, status, JSON.stringify(ops));
      const body = (await res.json()) as ErrorBody;
      assert.equal(body.code, code, body.message);
      assert.match(body.message, /^operation \d+ \(/);
      assert.match(body.details[0]!.field ?? '', field);
    }
    assert.equal(await snapshot(t), before);
  });

  it('validates the body: JSON array of known operations with unique paths', async () => {
    const before = await snapshot(t);
    const bad: unknown[] = [
      '{"not": "an array"}',
      '[{"action": "MOVE", "paths": ["a"]}]',
      `[{"action": "GET", "paths": ["${P}/keep.txt", "${P}/keep.txt"]}]`,
      `[{"action": "GET", "paths": []}]`,
      `[{"action": "GET", "paths": ["${P}/keep.txt"], "extra": 1}]`,
      '[{',
    ];
    for (const body of bad) {
      const res = await bulk(body);
      assert.equal(res.status, 400, String(body));
      assert.equal(((await res.json()) as ErrorBody).code, 'bad_request');
    }
    const wrongType = await bulk('[]', admin, { 'content-type': 'text/plain' });
    assert.equal(wrongType.status, 415);
    assert.equal(await snapshot(t), before);
  });

  it('refuses a jobs token', async () => {
    const jobs = await t.token('acme', 'shop', 'jobs');
    const res = await bulk([{ action: 'GET', paths: [`${P}/keep.txt`] }], jobs);
    assert.equal(res.status, 403);
  });
});
