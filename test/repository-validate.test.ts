// POST /rest/repository/validate/{path}: a file checked as a PUT would check it, never stored.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { setupProject } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

interface ErrorBody {
  status: number;
  code: string;
  message: string;
  details?: { field?: string; message: string }[];
}

describeEachStore('repository validate', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  const configPath = 'tenants/acme/projects/shop/restapi/config.ion';

  const validate = (path: string, body: string | Buffer, token?: string) =>
    t.fetch(`/rest/repository/validate/${path}`, { method: 'POST', body, headers: { 'content-type': 'application/octet-stream' }, ...(token ? { token } : {}) });
  const put = (path: string, body: string, token: string) => t.fetch(`/rest/repository/files/${path}`, { method: 'PUT', body, token, headers: { 'content-type': 'application/octet-stream' } });
  const stored = async (path: string) => (await t.fetch(`/rest/repository/files/${path}`, { token: tokens.admin, headers: { accept: '*/*' } })).status;

  before(async () => {
    t = await startTestServer(kind, { bodyLimit: 64 * 1024 });
    tokens = await setupProject(t);
  });
  after(() => t.close());

  it('answers 200 { valid: true } for a valid file and stores nothing', async () => {
    const res = await validate(configPath, '{ keepInputForSeconds: 3600, fanout: { enabled: true } }', tokens.admin);
    assert.equal(res.status, 200, await res.clone().text());
    assert.deepEqual(await res.json(), { valid: true });
    assert.equal(await stored(configPath), 404);
    // Files that are not config.ion are valid whatever they hold (as for PUT).
    const typ = await validate('tenants/acme/projects/shop/master-documents/x.typ', '#let x = (', tokens.admin);
    assert.equal(typ.status, 200);
  });

  it('answers an invalid config.ion with the 400 a PUT gives, naming the property', async () => {
    for (const body of ['{ keepInputForSecond: 3600 }', '{ keepInputForSeconds: 5 }', '{ fanout: { enabled: "yes" } }', '{ not ion']) {
      const checked = await validate(configPath, body, tokens.admin);
      const putted = await put(configPath, body, tokens.admin);
      assert.equal(checked.status, 400, body);
      assert.equal(putted.status, 400, body);
      const a = (await checked.json()) as ErrorBody;
      const b = (await putted.json()) as ErrorBody;
      assert.equal(a.code, b.code, body);
      assert.deepEqual(a.details, b.details, body);
      assert.equal(a.message, b.message, body);
    }
    const res = await validate(configPath, '{ keepInputForSecond: 3600 }', tokens.admin);
    const body = (await res.json()) as ErrorBody;
    assert.equal(body.code, 'invalid_config');
    assert.equal(body.details?.[0]?.field, 'keepInputForSecond');
    assert.match(body.details?.[0]?.message ?? '', /did you mean keepInputForSeconds/);
    assert.equal(await stored(configPath), 404);
  });

  it('needs the authorization a PUT of that path needs', async () => {
    const body = '{ keepInputForSeconds: 3600 }';
    assert.equal((await validate(configPath, body)).status, 401);
    assert.equal((await validate(configPath, body, tokens.jobs)).status, 403);
    assert.equal((await validate('tenants/acme/projects/other/restapi/config.ion', body, tokens.admin)).status, 403);
    assert.equal((await validate('restapi/config.ion', body, tokens.admin)).status, 403);
    assert.equal((await validate('restapi/config.ion', body, tokens.op)).status, 200);
    assert.equal((await validate('tenants/nobody/projects/x/restapi/config.ion', body, tokens.op)).status, 404);
    const bad = await validate('tenants/acme/projects/shop/a%00.ion', body, tokens.op);
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as ErrorBody).code, 'invalid_path');
  });

  it('refuses a body over the size limit with 413', async () => {
    const res = await validate(configPath, `{ documentTemplate: "${'x'.repeat(70 * 1024)}" }`, tokens.admin);
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as ErrorBody).code, 'payload_too_large');
  });
});
