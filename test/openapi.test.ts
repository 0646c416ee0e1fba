import assert from 'node:assert/strict';
import { subscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

interface Media {
  schema?: { type?: string; format?: string; $ref?: string };
  example?: unknown;
}
interface Operation {
  operationId?: string;
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { description?: string; content?: Record<string, Media> }>;
}
interface Spec {
  openapi: string;
  info: { version: string; title: string };
  servers?: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, unknown> };
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

/** The OpenAPI path of a Fastify URL (`:id` → `{id}`, a repository path `*` → `{path}`). */
const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\*/g, '{path}');

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
  // The document as served: the validator's resolveRefs() inlines the references of `spec`.
  let doc: Spec;
  before(async () => {
    registered.length = 0;
    t = await startTestServer(kind);
    const res = await t.fetch('/rest/openapi.json');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    spec = (await res.json()) as Spec;
    doc = structuredClone(spec);
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

  const operations = () => Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ path, method, op })));
  const render = (target: string) => doc.paths[`/rest/tenants/{tenant}/projects/{project}/${target}`]!.post!;
  const binaryTypes = (op: Operation, status: string) => {
    const content = op.responses[status]?.content ?? {};
    for (const [type, media] of Object.entries(content)) assert.deepEqual(media.schema, { type: 'string', format: 'binary' }, `${op.operationId} ${status} ${type}`);
    return Object.keys(content).sort();
  };

  it('has one stable operationId per operation, named components, and a description for every response', () => {
    const ids = operations().map(({ op }) => op.operationId);
    assert.ok(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]+$/.test(id)), `operationIds: ${ids.join(', ')}`);
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    for (const [id, path] of [['renderPdf', 'renderpdf'], ['renderPptx', 'renderpptx'], ['render', 'render']]) assert.equal(render(path!).operationId, id);
    assert.equal(doc.paths['/auth/{tenant}/tokens']?.post?.operationId, 'issueToken');
    for (const name of Object.keys(doc.components.schemas)) assert.doesNotMatch(name, /^def-\d+$/, 'component schemas are named');
    for (const name of ['ErrorBody', 'RenderResult', 'TicketStatusView', 'SummaryStatus', 'TokenResponse']) assert.ok(doc.components.schemas[name], name);
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses)) assert.ok(response.description && response.description !== 'Default Response', `${method} ${path} ${status}`);
    }
  });

  it('keeps every path absolute in one document without a servers prefix, and names the repository path parameter', () => {
    assert.equal(doc.servers, undefined);
    for (const path of Object.keys(doc.paths)) assert.match(path, /^\/(rest|auth)\//);
    assert.ok(!JSON.stringify(doc.paths).includes('{*}'), 'no path parameter named *');
    for (const path of ['/rest/repository/files/{path}', '/rest/repository/tree/{path}']) {
      for (const op of Object.values(doc.paths[path]!)) assert.deepEqual(op.parameters?.filter((p) => p.in === 'path').map((p) => p.name), ['path'], path);
    }
  });

  it('documents the render requests: XML, JSON and ZIP bodies, binary answers, RenderResult and error bodies', () => {
    for (const target of ['renderpdf', 'renderpptx', 'render']) {
      const op = render(target);
      assert.deepEqual(Object.keys(op.requestBody?.content ?? {}), ['application/xml', 'application/json', 'application/zip'], target);
      // "Try it out" on the docs page starts with an XML body.
      assert.equal(typeof op.requestBody?.content['application/xml']?.example, 'string');
      assert.match(String(op.requestBody?.content['application/xml']?.example), /^<\?xml/);
      for (const status of ['202', '408']) assert.equal(op.responses[status]?.content?.['application/json']?.schema?.$ref, '#/components/schemas/RenderResult', `${target} ${status}`);
      // Idempotent submission: the optional header, and its 409 and 422.
      assert.ok(op.parameters?.some((p) => p.in === 'header' && p.name === 'idempotency-key'), `${target} Idempotency-Key`);
      for (const status of ['400', '401', '403', '404', '406', '409', '413', '415', '422', '500']) {
        assert.equal(op.responses[status]?.content?.['application/json']?.schema?.$ref, '#/components/schemas/ErrorBody', `${target} ${status}`);
      }
    }
    assert.deepEqual(binaryTypes(render('renderpdf'), '200'), ['application/pdf', 'application/zip', 'image/jpeg', 'image/png']);
    assert.deepEqual(binaryTypes(render('renderpptx'), '200'), ['application/vnd.openxmlformats-officedocument.presentationml.presentation']);
    // renderpptx refuses convert: it does not offer it.
    assert.ok(render('renderpdf').parameters?.some((p) => p.name === 'convert'));
    assert.ok(!render('renderpptx').parameters?.some((p) => p.name === 'convert'));
  });

  it('documents downloads as binary with their media types', () => {
    const base = '/rest/tenants/{tenant}/projects/{project}';
    const storage = binaryTypes(doc.paths[`${base}/storage/{filename}`]!.get!, '200');
    for (const type of ['application/pdf', 'application/octet-stream']) assert.ok(storage.includes(type), `storage ${type}`);
    const artifact = binaryTypes(doc.paths[`${base}/tickets/{ticket}/artifact`]!.get!, '200');
    for (const type of ['application/pdf', 'application/vnd.openxmlformats-officedocument.presentationml.presentation', 'application/zip']) assert.ok(artifact.includes(type), `artifact ${type}`);
    assert.deepEqual(binaryTypes(doc.paths['/rest/repository/files/{path}']!.get!, '200'), ['*/*']);
  });

  it('titles the docs page pressroom, without a framework logo, with try-it-out on renderpdf', async () => {
    const html = await (await fetch(`${t.url}/rest/docs`, { headers: { accept: 'text/html' } })).text();
    assert.match(/<title>([^<]*)<\/title>/.exec(html)?.[1] ?? '', /pressroom/);
    assert.doesNotMatch(html, /favicon-(16|32)x(16|32)\.png/);
    const init = await (await fetch(`${t.url}/rest/docs/static/swagger-initializer.js`)).text();
    // BaseLayout has no top bar, so no logo is drawn; nor is the plugin's default one embedded.
    assert.match(init, /"layout":"BaseLayout"/);
    const frameworkLogo = readFileSync(createRequire(import.meta.url).resolve('@fastify/swagger-ui/static/logo.svg')).toString('base64');
    assert.ok(!init.includes(frameworkLogo.slice(0, 60)), 'the framework logo is not embedded');
  });
});
