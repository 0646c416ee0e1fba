import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { decodeJwt, SignJWT, UnsecuredJWT } from 'jose';
import { meta } from '../src/store/index.js';
import { ADMIN_PASSWORD, startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

describeEachStore('token service', (kind) => {
  let t: TestServer;
  let op: string;
  before(async () => {
    t = await startTestServer(kind);
    op = await t.operatorToken();
    for (const [path, ok] of [['/rest/tenants?name=acme', 200], ['/rest/tenants/acme/projects?name=shop', 200]] as const) {
      const res = await t.fetch(path, { method: 'POST', token: op });
      assert.equal(res.status, ok, await res.text());
    }
  });
  after(() => t.close());

  const post = (tenant: string, body: string, headers: Record<string, string> = {}) =>
    fetch(`${t.url}/auth/${tenant}/tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json', ...headers },
      body,
    });

  it('issues a bearer token with every required claim', async () => {
    const res = await post('acme', form({ username: 'admin', password: ADMIN_PASSWORD, project: 'shop', scope: 'jobs' }));
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.token_type, 'bearer');
    assert.equal(body.scope, 'jobs');
    assert.equal(body.expires_in, 3600);
    const claims = decodeJwt(body.access_token as string);
    for (const c of ['iss', 'aud', 'sub', 'tenant', 'project', 'scope', 'exp', 'iat', 'jti', 'ut', 'us', 'tid', 'pid']) assert.ok(c in claims, `claim ${c}`);
    assert.equal(claims.tenant, 'acme');
    assert.equal(claims.project, 'shop');
  });

  it('answers 401 invalid_grant for a wrong password or unknown user', async () => {
    for (const fields of [
      { username: 'admin', password: 'nope-nope', project: 'shop', scope: 'jobs' },
      { username: 'ghost', password: ADMIN_PASSWORD, project: 'shop', scope: 'jobs' },
    ]) {
      const res = await post('acme', form(fields));
      assert.equal(res.status, 401);
      const body = (await res.json()) as Record<string, unknown>;
      assert.equal(body.error, 'invalid_grant');
      assert.match(String(body.message), /wrong/);
    }
  });

  it('answers 400 invalid_request for a malformed or incomplete form', async () => {
    for (const body of ['', 'username=admin', form({ username: 'admin', password: ADMIN_PASSWORD, project: 'shop' }), 'username=a&username=b&password=x&project=p&scope=jobs']) {
      const res = await post('acme', body);
      assert.equal(res.status, 400, body);
      const json = (await res.json()) as Record<string, unknown>;
      assert.equal(json.error, 'invalid_request');
    }
  });

  it('answers 400 invalid_scope for an unknown scope', async () => {
    const res = await post('acme', form({ username: 'admin', password: ADMIN_PASSWORD, project: 'shop', scope: 'root' }));
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: string }).error, 'invalid_scope');
  });

  it('answers 415 for JSON and 406 without Accept JSON', async () => {
    const json = await post('acme', JSON.stringify({ username: 'admin' }), { 'content-type': 'application/json' });
    assert.equal(json.status, 415);
    const body = (await json.json()) as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['code', 'error', 'message', 'path', 'status', 'timestamp']);
    const xml = await post('acme', form({ username: 'admin', password: ADMIN_PASSWORD, project: 'shop', scope: 'jobs' }), { accept: 'application/xml' });
    assert.equal(xml.status, 406);
  });

  it('answers 405 for GET on the token endpoint', async () => {
    const res = await fetch(`${t.url}/auth/acme/tokens`, { headers: { accept: 'application/json' } });
    assert.equal(res.status, 405);
  });

  it('refuses forged, unsigned, expired and foreign tokens with 401 or 403', async () => {
    const secret = new TextEncoder().encode((await meta.getMeta(t.server.ctx.db.kysely, 'jwt_secret'))!);
    // The identity claims of a genuine operator token: forging them needs the key as well.
    const { ut, us } = decodeJwt(op);
    const base = { tenant: 'system', project: 'admin', scope: 'admin', op: true, ut, us };
    const sign = (claims: object, opts: { iss?: string; aud?: string; exp?: string | null; key?: Uint8Array } = {}) => {
      let jwt = new SignJWT(claims as Record<string, unknown>).setProtectedHeader({ alg: 'HS256' }).setSubject('admin').setIssuedAt().setJti('x');
      jwt = jwt.setIssuer(opts.iss ?? 'pressroom').setAudience(opts.aud ?? 'pressroom');
      if (opts.exp !== null) jwt = jwt.setExpirationTime(opts.exp ?? '1h');
      return jwt.sign(opts.key ?? secret);
    };
    // The genuine signature works, so each refusal below is about the one thing changed.
    assert.equal((await t.fetch('/rest/tenants', { token: await sign(base) })).status, 200);
    const bad = [
      new UnsecuredJWT(base).setIssuer('pressroom').setAudience('pressroom').setSubject('admin').setIssuedAt().setExpirationTime('1h').encode(),
      await sign(base, { key: new TextEncoder().encode('a'.repeat(32)) }),
      await sign(base, { exp: null }),
      await sign(base, { aud: 'other' }),
      await sign(base, { iss: 'other' }),
      await sign(base, { exp: '-10s' }),
      await sign({ tenant: 'system', project: 'admin', scope: 'admin', op: true }),
      await sign({ ...base, us: 'another-password-stamp' }),
      'not-a-jwt',
    ];
    for (const token of bad) {
      const res = await t.fetch('/rest/tenants', { token });
      assert.equal(res.status, 401, token);
    }
    assert.equal((await t.fetch('/rest/tenants')).status, 401);
    const other = await t.token('acme', 'shop', 'admin');
    assert.equal((await t.fetch('/rest/tenants', { token: other })).status, 403);
  });
});
