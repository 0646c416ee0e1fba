import assert from 'node:assert/strict';
import { subscribe } from 'node:diagnostics_channel';
import { after, before, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

interface Spec {
  openapi: string;
  info: { version: string; title: string };
  paths: Record<string, Record<string, { security?: unknown[]; parameters?: { name: string; in: string }[] }>>;
  security?: unknown[];
}

// Every route any Fastify instance of this process registers, as the app sees it: the
// test derives the expected paths from the app, so routes added later are covered too.
const registered: RouteOptions[] = [];
subscribe('fastify.initialization', (message) => {
  const { fastify } = message as { fastify: FastifyInstance };
  fastify.addHook('onRoute', (route) => {
    registered.push(route);
  });
});

/** The OpenAPI path of a Fastify URL, as @fastify/swagger writes it (`:id` → `{id}`, `*` → `{*}`). */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*/g, '{*}');

/** Public operations: under /rest or /auth, not hidden (spec, docs page, 405 helpers), not HEAD. */
function publicOperations(): { path: string; method: string }[] {
  const out = new Map<string, { path: string; method: string }>();
  for (const route of registered) {
    if (!/^\/(rest|auth)(\/|$)/.test(route.url)) continue;
    if ((route.schema as { hide?: boolean } | undefined)?.hide) continue;
    if (route.url === '/rest/docs' || route.url.startsWith('/rest/docs/')) continue;
    for (const method of Array.isArray(route.method) ? route.method : [route.method]) {
      if (method === 'HEAD') continue;
      const op = { path: openApiPath(route.url), method: method.toLowerCase() };
      out.set(`${op.method} ${op.path}`, op);
    }
  }
  return [...out.values()];
}

describeEachStore('OpenAPI document', (kind) => {
  let t: TestServer;
  let spec: Spec;
  before(async () => {
    registered.length = 0;
    t = await startTestServer(kind);
    const res = await t.fetch('/rest/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    spec = (await res.json()) as Spec;
  });
  after(() => t.close());

  it('is a valid OpenAPI 3.1 document, version 1.4.0, served without a token', async () => {
    const validator = new Validator();
    const result = await validator.validate(spec as unknown as Record<string, unknown>);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 2));
    assert.equal(validator.version, '3.1');
    assert.match(spec.openapi, /^3\.1/);
    assert.equal(spec.info.version, '1.4.0');
    // Every $ref resolves (the validator checks shape, not reference targets).
    assert.doesNotThrow(() => validator.resolveRefs());
    const refs = [...JSON.stringify(spec).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((m) => m[1]!);
    for (const ref of new Set(refs)) {
      let node: unknown = spec;
      for (const part of ref.split('/')) node = (node as Record<string, unknown> | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
      assert.ok(node !== undefined, `unresolved $ref #/${ref}`);
    }
  });

  it('lists every public route the app registered, and nothing hidden', () => {
    const ops = publicOperations();
    assert.ok(ops.length >= 9, `only ${ops.length} routes seen; did the onRoute subscription work?`);
    const missing = ops.filter((op) => !spec.paths[op.path]?.[op.method]);
    assert.deepEqual(missing, [], `routes missing from /rest/openapi.json: ${missing.map((m) => `${m.method.toUpperCase()} ${m.path}`).join(', ')}`);

    const must: [string, string][] = [
      ['post', '/auth/{tenant}/tokens'],
      ['get', '/rest/tenants'],
      ['post', '/rest/tenants'],
      ['get', '/rest/tenants/{tenant}'],
      ['delete', '/rest/tenants/{tenant}'],
      ['get', '/rest/tenants/{tenant}/projects'],
      ['post', '/rest/tenants/{tenant}/projects'],
      ['get', '/rest/tenants/{tenant}/projects/{project}'],
      ['delete', '/rest/tenants/{tenant}/projects/{project}'],
    ];
    for (const [method, path] of must) assert.ok(spec.paths[path]?.[method], `${method.toUpperCase()} ${path} missing`);

    for (const hidden of ['/rest/openapi.json', '/rest/docs', '/healthz', '/readyz', '/metrics']) assert.equal(spec.paths[hidden], undefined, hidden);
    // The 405 helpers are not operations: nobody documents PUT on a tenant.
    assert.equal(spec.paths['/rest/tenants/{tenant}']?.put, undefined);
    assert.equal(spec.paths['/auth/{tenant}/tokens']?.get, undefined);
  });

  it('documents the bearer scheme, the public token endpoint and the query parameters', () => {
    assert.deepEqual(spec.security, [{ bearer: [] }]);
    assert.deepEqual(spec.paths['/auth/{tenant}/tokens']?.post?.security, []);
    const createProject = spec.paths['/rest/tenants/{tenant}/projects']?.post;
    const query = (createProject?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name).sort();
    assert.deepEqual(query, ['expires', 'keepUntil', 'name']);
    const listTenants = spec.paths['/rest/tenants']?.get;
    assert.ok(listTenants?.parameters?.some((p) => p.in === 'query' && p.name === 'pattern'));
  });

  it('serves the docs page as HTML without a token', async () => {
    const res = await fetch(`${t.url}/rest/docs`, { headers: { accept: 'text/html' } });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    const html = await res.text();
    assert.match(html, /swagger/i);
    const init = await fetch(`${t.url}/rest/docs/static/swagger-initializer.js`);
    assert.equal(init.status, 200);
    assert.match(await init.text(), /\/rest\/openapi\.json/);
  });
});
