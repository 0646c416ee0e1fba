import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { Context } from '../src/context.js';
import { buildApp } from '../src/http/app.js';
import { createContext } from '../src/server.js';
import { freshSettings, startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

describeEachStore('health and metrics', (kind) => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(kind);
  });
  after(() => t.close());

  // Probes come from load balancers and Prometheus: no token, no Accept header needed.
  const bare = (path: string, init: RequestInit = {}) => fetch(t.url + path, { ...init, headers: { accept: '', ...(init.headers ?? {}) } });

  it('/healthz answers 200 without token or Accept', async () => {
    const res = await bare('/healthz');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ok' });
  });

  it('/readyz answers 200 when the database is reachable', async () => {
    const res = await bare('/readyz');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { status: 'ready' });
  });

  it('/metrics serves Prometheus text with request durations by route template', async () => {
    const op = await t.operatorToken();
    assert.equal((await t.fetch('/rest/tenants/nobody', { token: op })).status, 404);
    const res = await bare('/metrics');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = await res.text();
    assert.match(text, /^# HELP pressroom_http_request_duration_seconds /m);
    assert.match(text, /^# TYPE pressroom_http_request_duration_seconds histogram$/m);
    // The route label is the template, so tenant names never become label values.
    assert.match(text, /pressroom_http_request_duration_seconds_count\{method="GET",route="\/rest\/tenants\/:tenant",status="404"\} 1/);
    assert.doesNotMatch(text, /nobody/);
    assert.match(text, /^pressroom_process_cpu_seconds_total /m);
  });

  it('answers 405 for other methods on the probes', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const res = await bare(path, { method: 'POST' });
      assert.equal(res.status, 405, path);
      assert.match(res.headers.get('allow') ?? '', /GET/);
    }
  });
});

describeEachStore('readiness', (kind) => {
  let ctx: Context;
  let closed = false;
  let cleanup: () => Promise<void>;
  before(async () => {
    const fresh = await freshSettings(kind);
    cleanup = fresh.cleanup;
    ctx = await createContext(fresh.settings);
  });
  after(async () => {
    if (!closed) await ctx.close();
    await cleanup();
  });

  it('/readyz answers 503 while starting or stopping, and when the database is gone', async () => {
    let ready = false;
    const app = await buildApp(ctx, { ready: () => ready });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const addr = app.server.address();
    const url = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    try {
      const starting = await fetch(`${url}/readyz`);
      assert.equal(starting.status, 503);
      assert.deepEqual(await starting.json(), { status: 'unavailable', reason: 'starting or stopping' });
      assert.equal((await fetch(`${url}/healthz`)).status, 200, 'alive while not ready');

      ready = true;
      assert.equal((await fetch(`${url}/readyz`)).status, 200);

      await ctx.close();
      closed = true;
      const gone = await fetch(`${url}/readyz`);
      assert.equal(gone.status, 503);
      assert.deepEqual(await gone.json(), { status: 'unavailable', reason: 'database not reachable' });
    } finally {
      await app.close();
    }
  });
});
