import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const P = 'tenants/acme/projects/shop';
const longName = 'a'.repeat(250) + '_';

interface Listing {
  path: string;
  recursive: boolean;
  pattern: string;
  files: { path: string; name: string; size: number; sha256: string; updated: string }[];
  folders: string[];
}

describeEachStore('repository tree listing', (kind) => {
  let t: TestServer;
  let op: string;
  let admin: string;
  before(async () => {
    t = await startTestServer(kind);
    op = await t.operatorToken();
    for (const path of ['/rest/tenants?name=acme', '/rest/tenants/acme/projects?name=shop', '/rest/tenants/acme/projects?name=other']) {
      assert.equal((await t.fetch(path, { method: 'POST', token: op })).status, 200);
    }
    admin = await t.token('acme', 'shop', 'admin');
    const files = ['restapi/config.ion', 'master-documents/x.typ', `${P}/restapi/config.ion`, `${P}/data/a.json`, `${P}/data/deep/b.xslt`, `${P}/master-documents/t.typ`, `${P}/top.json`, `${P}/readme.txt`, `${P}/${longName}`];
    for (const f of files) {
      const res = await t.fetch(`/rest/repository/files/${f}`, { method: 'PUT', token: op, body: f.endsWith('.ion') ? '{}' : 'x' });
      assert.equal(res.status, 200, await res.text());
    }
  });
  after(() => t.close());

  const list = async (path: string, query = '', token = admin): Promise<Listing> => {
    const res = await t.fetch(`/rest/repository/tree${path}${query}`, { token });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as Listing;
  };

  it('lists one folder with the default pattern: matching files and the subfolder names', async () => {
    const l = await list(`/${P}`);
    assert.equal(l.path, P);
    assert.equal(l.recursive, false);
    assert.equal(l.pattern, '^.*\\.(ion|json|zip|xslt|w2ml)$');
    assert.deepEqual(l.files.map((f) => [f.path, f.name, f.size]), [[`${P}/top.json`, 'top.json', 1]]);
    assert.match(l.files[0]!.sha256, /^[0-9a-f]{64}$/);
    assert.deepEqual(l.folders, ['data', 'master-documents', 'restapi']);
  });

  it('lists recursively, matching the pattern against the path relative to the folder', async () => {
    const all = await list(`/${P}`, '?recursive=true');
    assert.deepEqual(all.files.map((f) => f.path).sort(), [`${P}/data/a.json`, `${P}/data/deep/b.xslt`, `${P}/restapi/config.ion`, `${P}/top.json`]);
    const typ = await list(`/${P}`, `?recursive=true&pattern=${encodeURIComponent('^master-documents/[^/]+\\.typ$')}`);
    assert.deepEqual(typ.files.map((f) => f.name), ['t.typ']);
    const everything = await list(`/${P}/data`, '?recursive=true&pattern=');
    assert.deepEqual(everything.files.map((f) => f.path), [`${P}/data/a.json`, `${P}/data/deep/b.xslt`]);
    const root = await list('', '?pattern=', op);
    assert.deepEqual(root.folders, ['master-documents', 'restapi', 'tenants']);
    assert.deepEqual(root.files, []);
  });

  it('allows a project admin its own project folder only, and 404s unknown projects', async () => {
    for (const path of ['', '/tenants/acme', '/tenants/acme/projects', '/tenants/acme/projects/other', '/restapi']) {
      const res = await t.fetch(`/rest/repository/tree${path}`, { token: admin });
      assert.equal(res.status, 403, path);
    }
    assert.equal((await t.fetch('/rest/repository/tree/tenants/acme/projects/ghost', { token: op })).status, 404);
    assert.equal((await t.fetch('/rest/repository/tree/tenants/acme/projects/shop/..%5cother', { token: op })).status, 400);
    assert.equal((await t.fetch(`/rest/repository/tree/${P}`, { token: admin, headers: { accept: 'text/html' } })).status, 406);
  });

  it('refuses invalid and unsupported patterns with 400 invalid_pattern', async () => {
    for (const pattern of ['(a', '(a)\\1', 'a(?=b)', '(?<!a)b', 'x'.repeat(300)]) {
      const res = await t.fetch(`/rest/repository/tree/${P}?pattern=${encodeURIComponent(pattern)}`, { token: admin });
      assert.equal(res.status, 400, pattern);
      const body = (await res.json()) as { code: string; details: { field: string }[] };
      assert.equal(body.code, 'invalid_pattern', pattern);
      assert.equal(body.details[0]!.field, 'pattern');
    }
  });

  it('answers catastrophic-backtracking patterns at once', async () => {
    const patterns = ['^(a+)+$', '^(a|aa)+$', '^(a|a?)+$', '^(.*a){12}$'];
    await list(`/${P}`, `?pattern=${encodeURIComponent(patterns[0]!)}`);
    for (const pattern of patterns) {
      // Best of three: a backtracking regex would take seconds every time, while a busy CI
      // machine can delay any single request.
      let elapsed = Infinity;
      let res!: Response;
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        res = await t.fetch(`/rest/repository/tree/${P}?pattern=${encodeURIComponent(pattern)}`, { token: admin });
        elapsed = Math.min(elapsed, performance.now() - started);
        if (i < 2) await res.arrayBuffer();
      }
      assert.ok(res.status === 200 || res.status === 400, pattern);
      // Backtracking needs about 2^40 steps here (hours); 2 s leaves room for a loaded machine.
      assert.ok(elapsed < 2000, `${pattern} took ${elapsed.toFixed(1)} ms`);
      if (res.status === 200) assert.deepEqual(((await res.json()) as Listing).files, [], `${longName} must not match ${pattern}`);
    }
  });
});
