// Redirects of webhook requests: credentials stay with the origin they were configured for, an
// https receiver cannot send them down to http, hops count against followRedirects, and every
// hop passes the address policy. The worker runs as its own process so that it trusts the test
// CA through NODE_EXTRA_CA_CERTS, which Node reads only at start.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { after, before, it } from 'node:test';
import { putFile, setupProject, submit, waitComplete, type Status } from './helpers/project.js';
import { startReceiver, type Receiver, type Reply } from './helpers/receiver.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { makeTestTls, type TestTls } from './helpers/tls.js';
import { startWorkerProcess, stopProcess } from './helpers/worker-process.js';

const P = 'tenants/acme/projects/shop';
const grid = '<data><item id="A-1"><title>Espresso machine</title></item></data>';
const secrets = ['k-secret', 'c-secret', 'cookie-secret', 'basic-secret', 'at-secret'];

describeEachStore('webhooks: redirects', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  let tls: TestTls;
  let worker: ChildProcess;
  /** The receiver the redirects start at, another origin (other port), one on a refused address, one on HTTPS. */
  let a: Receiver, b: Receiver, refused: Receiver, secure: Receiver;
  const routes = new Map<string, () => Reply>();
  const route = (req: { url: string }): Reply => routes.get(req.url)?.() ?? {};
  const moved = (status: number, location: () => string) => () => ({ status, headers: { location: location() }, body: '' });

  before(async () => {
    tls = makeTestTls();
    t = await startTestServer(kind, { role: 'api' });
    tokens = await setupProject(t);
    a = await startReceiver(route);
    b = await startReceiver(route);
    refused = await startReceiver(route, { host: '127.0.0.2' });
    secure = await startReceiver(route, { tls });
    worker = startWorkerProcess(t.settings, { NODE_EXTRA_CA_CERTS: tls.caFile, PRESSROOM_ALLOW_PRIVATE_ADDRESSES: '127.0.0.1' });
  });
  after(async () => {
    await stopProcess(worker);
    for (const r of [a, b, refused, secure]) await r?.close();
    await t.close();
    tls.remove();
  });

  async function callback(connection: string, url: string): Promise<Status> {
    for (const r of [a, b, refused, secure]) r.requests.length = 0;
    await putFile(t, tokens.admin, `${P}/callback/config.ion`, `{ connections: [ ${connection} ] }`);
    const [id] = await submit(t, tokens.jobs, grid, { query: `callback=${encodeURIComponent(url)}` });
    return waitComplete(t, tokens.jobs, id!, 90_000);
  }

  /** Asserts that no header of a request carries a configured secret. */
  function noSecrets(rawHeaders: string[], where: string): void {
    const text = rawHeaders.join('\n');
    for (const s of secrets) assert.ok(!text.includes(s), `${where} received ${s}:\n${text}`);
  }

  it('keeps the API key and configured headers on the same origin and drops them, with Authorization and Cookie, on another', async () => {
    routes.set('/hook', moved(307, () => '/moved'));
    routes.set('/moved', moved(308, () => `${b.url}/final`));
    const s = await callback(
      `{ url: "${a.url}/hook", followRedirects: 2, authentication: { type: ApiKey, key: "X-Api-Key", value: "k-secret" },
         headers: { "X-Custom": "c-secret", "Authorization": "Basic basic-secret", "Cookie": "session=cookie-secret", "Content-Type": "application/json; charset=utf-8" } }`,
      `${a.url}/hook`,
    );
    assert.equal(s.status, 'callback.succeeded', JSON.stringify(s));
    assert.deepEqual(a.requests.map((r) => r.url), ['/hook', '/moved']);
    for (const r of a.requests) {
      assert.equal(r.headers['x-api-key'], 'k-secret', `${r.url}: same origin keeps the API key`);
      assert.equal(r.headers['x-custom'], 'c-secret');
      assert.equal(r.headers.authorization, 'Basic basic-secret');
      assert.equal(r.headers.cookie, 'session=cookie-secret');
    }
    assert.deepEqual(b.requests.map((r) => `${r.method} ${r.url}`), ['POST /final']);
    const [other] = b.requests;
    noSecrets(other!.rawHeaders, 'the other origin');
    for (const name of ['x-api-key', 'x-custom', 'authorization', 'cookie']) assert.equal(other!.headers[name], undefined, name);
    assert.equal(other!.headers['user-agent'], 'pressroom service-callback');
    assert.equal(other!.headers['content-type'], 'application/json; charset=utf-8', 'Content-Type describes the body and goes on with it');
    assert.ok(other!.body.equals(a.requests[0]!.body), 'the body goes on');
  });

  it('drops an OAuth2 bearer token on a redirect to another origin', async () => {
    routes.set('/token', () => ({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ access_token: 'at-secret', expires_in: 3600 }) }));
    routes.set('/oauth-hook', moved(302, () => `${b.url}/oauth-final`));
    const s = await callback(
      `{ url: "${a.url}/oauth-hook", followRedirects: 1, authentication: { type: OAuth2, grantType: ClientCredentials, clientId: "c1", clientSecret: "client-secret-1", tokenUrl: "${a.url}/token" } }`,
      `${a.url}/oauth-hook`,
    );
    assert.equal(s.status, 'callback.succeeded', JSON.stringify(s));
    const hook = a.requests.find((r) => r.url === '/oauth-hook');
    assert.equal(hook?.headers.authorization, 'Bearer at-secret');
    assert.deepEqual(b.requests.map((r) => r.url), ['/oauth-final']);
    noSecrets(b.requests[0]!.rawHeaders, 'the other origin');
  });

  it('refuses a redirect from https to http: the hop is not made, errorCode 403', async () => {
    routes.set('/secure', moved(307, () => '/still-secure'));
    routes.set('/still-secure', moved(307, () => `${b.url}/plain`));
    const s = await callback(`{ url: "${secure.url}/", followRedirects: 5, authentication: { type: ApiKey, key: "X-Api-Key", value: "k-secret" } }`, `${secure.url}/secure`);
    assert.deepEqual(secure.requests.map((r) => r.url), ['/secure', '/still-secure'], 'the worker trusts the test CA; https to https is followed');
    assert.equal(secure.requests[1]!.headers['x-api-key'], 'k-secret');
    assert.equal(b.requests.length, 0, 'the http hop was not made');
    assert.equal(s.status, 'callback.failed', JSON.stringify(s));
    assert.equal(s.errorCode, '403');
    assert.match(s.errorMessage!, new RegExp(`^HTTP \\[refused\\] .*POST ${secure.url}/secure \\(redirect from https to http refused \\(${b.url}\\)\\)$`));
  });

  it('counts every hop against followRedirects', async () => {
    routes.set('/r1', moved(307, () => '/r2'));
    routes.set('/r2', moved(307, () => '/r3'));
    routes.set('/r3', moved(307, () => '/end'));
    const s = await callback(`{ url: "${a.url}/r", followRedirects: 2 }`, `${a.url}/r1`);
    assert.deepEqual(a.requests.map((r) => r.url), ['/r1', '/r2', '/r3'], 'two redirects followed, the third is the answer');
    assert.equal(s.status, 'callback.failed', JSON.stringify(s));
    assert.equal(s.errorCode, '307');
    assert.match(s.errorMessage!, /^HTTP \[307\] .*POST http:\/\/127\.0\.0\.1:\d+\/r1$/);
  });

  it('checks every hop against the address policy', async () => {
    routes.set('/away', moved(302, () => `${refused.url}/inside`));
    const s = await callback(`{ url: "${a.url}/away", followRedirects: 3 }`, `${a.url}/away`);
    assert.deepEqual(a.requests.map((r) => r.url), ['/away']);
    assert.equal(refused.requests.length, 0, 'the refused address got no request');
    assert.equal(s.status, 'callback.failed', JSON.stringify(s));
    assert.equal(s.errorCode, '403');
    assert.match(s.errorMessage!, /127\.0\.0\.2, which is not a public address/);
  });
});
