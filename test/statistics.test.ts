import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { recordUsage } from '../src/stats/index.js';
import { testClock } from './helpers/clock.js';
import { putFile, setupProject, submit, waitComplete, type Status } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const grid = `<data><item id="A-1"><title>Espresso machine</title><price>249.90</price></item></data>`;

interface Summary {
  tenant: string;
  project: string;
  unit: string;
  startDate: string;
  endDate: string;
  [counter: string]: string | number;
}

const counterNames = [
  'tickets',
  'errors',
  'processingMsec',
  'processingPages',
  'redeliveries',
  'totalMsec',
  'downloadRequests',
  'downloadBytes',
  'downloadMsec',
  'uploadRequests',
  'uploadBytes',
  'uploadMsec',
  'cacheHits',
];

const zero = Object.fromEntries(counterNames.map((n) => [n, 0]));

/** What the statuses of complete tickets add up to. */
function expected(statuses: (Status & { created: string; updated: string })[], errors: number): Record<string, number> {
  return {
    ...zero,
    tickets: statuses.length,
    errors,
    processingMsec: statuses.reduce((s, x) => s + x.processingMsecs, 0),
    processingPages: statuses.reduce((s, x) => s + x.processingPages, 0),
    redeliveries: statuses.reduce((s, x) => s + x.redeliveries, 0),
    totalMsec: statuses.reduce((s, x) => s + Date.parse(x.updated) - Date.parse(x.created), 0),
  };
}

const countersOf = (row: Summary) => Object.fromEntries(counterNames.map((n) => [n, row[n]]));
const sum = (a: Record<string, number>, b: Record<string, number>) => Object.fromEntries(counterNames.map((n) => [n, a[n]! + b[n]!]));

describeEachStore('statistics', (kind) => {
  let t: TestServer;
  let shop: { op: string; jobs: string; admin: string };
  const clock = testClock(Date.parse('2024-02-29T22:10:00Z'));
  let phase1: Record<string, number>;
  let phase2: Record<string, number>;

  const get = async (path: string, token: string, status = 200): Promise<Summary[]> => {
    const res = await t.fetch(path, { token });
    const text = await res.text();
    assert.equal(res.status, status, `${path}: ${text}`);
    return JSON.parse(text) as Summary[];
  };
  const run = async (token: string, n: number, opts: { query?: string; tenant?: string; project?: string } = {}) => {
    const ids = [];
    for (let i = 0; i < n; i++) ids.push(...(await submit(t, token, grid, opts)));
    return Promise.all(ids.map((id) => waitComplete(t, token, id, 60_000, opts.tenant, opts.project) as Promise<Status & { created: string; updated: string }>));
  };

  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50, housekeepingMs: 0 }, { now: clock.now });
    shop = await setupProject(t);
    const other = await setupProject(t, 'acme', 'other');
    const web = await setupProject(t, 'beta', 'web');
    await putFile(t, shop.admin, 'tenants/acme/projects/shop/master-documents/broken.typ', '#let x = (1 +\n');
    await putFile(t, shop.admin, 'tenants/acme/projects/shop/renderpdf/config.ion', '{ redeliverOnError: [ { codePattern: "422", maxRedeliveries: 1 } ] }');

    // Phase 1, 2024-02-29 22:xx UTC: 3 good and 1 failing ticket in shop, one each elsewhere.
    const good = await run(shop.jobs, 3);
    const [bad] = await run(shop.jobs, 1, { query: 'documentTemplate=broken' });
    assert.equal(bad!.status, 'renderpdf.failed');
    assert.equal(bad!.redeliveries, 1);
    phase1 = expected([...good, bad!], 1);
    assert.ok(phase1.processingPages! >= 3);
    await run(other.jobs, 1, { project: 'other' });
    await run(web.jobs, 1, { tenant: 'beta', project: 'web' });

    // Phase 2, 2024-03-01 00:xx UTC: one more in shop (another hour, day and month; same year).
    clock.set(Date.parse('2024-03-01T00:10:00Z'));
    phase2 = expected(await run(shop.jobs, 1), 0);
  });
  after(() => t.close());

  it('counts a known workload exactly, one row per unit and interval, hour first', async () => {
    const rows = await get('/rest/statistics/tenants/acme/projects/shop', shop.admin);
    assert.deepEqual(
      rows.map((r) => [r.unit, r.startDate, r.endDate]),
      [
        ['hour', '2024-02-29T22:00:00.000Z', '2024-02-29T23:00:00.000Z'],
        ['hour', '2024-03-01T00:00:00.000Z', '2024-03-01T01:00:00.000Z'],
        ['day', '2024-02-29T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
        ['day', '2024-03-01T00:00:00.000Z', '2024-03-02T00:00:00.000Z'],
        ['month', '2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
        ['month', '2024-03-01T00:00:00.000Z', '2024-04-01T00:00:00.000Z'],
        ['year', '2024-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z'],
      ],
    );
    for (const r of rows) assert.deepEqual([r.tenant, r.project], ['acme', 'shop']);
    for (const i of [0, 2, 4]) assert.deepEqual(countersOf(rows[i]!), phase1);
    for (const i of [1, 3, 5]) assert.deepEqual(countersOf(rows[i]!), phase2);
    assert.deepEqual(countersOf(rows[6]!), sum(phase1, phase2));
    assert.equal(rows[6]!.tickets, 5);
    assert.equal(rows[6]!.errors, 1);
    assert.equal(rows[6]!.redeliveries, 1);
    assert.deepEqual(Object.keys(rows[0]!).sort(), ['tenant', 'project', 'unit', 'startDate', 'endDate', ...counterNames].sort());
  });

  it('filters by unit; an empty unit means all units', async () => {
    const base = '/rest/statistics/tenants/acme/projects/shop';
    assert.deepEqual((await get(`${base}?unit=day`, shop.admin)).map((r) => r.startDate), ['2024-02-29T00:00:00.000Z', '2024-03-01T00:00:00.000Z']);
    assert.deepEqual((await get(`${base}?unit=year`, shop.op)).map((r) => r.tickets), [5]);
    assert.equal((await get(`${base}?unit=`, shop.admin)).length, 7);
    await get(`${base}?unit=week`, shop.admin, 400);
  });

  it('takes startDate inclusive and endDate exclusive, on the interval start', async () => {
    const base = '/rest/statistics/tenants/acme/projects/shop';
    const starts = async (q: string) => (await get(`${base}?${q}`, shop.admin)).map((r) => `${r.unit} ${r.startDate}`);
    assert.deepEqual(await starts('unit=day&startDate=2024-03-01T00:00:00Z'), ['day 2024-03-01T00:00:00.000Z']);
    assert.deepEqual(await starts('unit=day&endDate=2024-03-01T00:00:00Z'), ['day 2024-02-29T00:00:00.000Z']);
    assert.deepEqual(await starts('unit=day&startDate=2024-03-01T01:00:00%2B01:00'), ['day 2024-03-01T00:00:00.000Z']);
    assert.deepEqual(await starts('unit=hour&startDate=2024-02-29T22:00:00Z&endDate=2024-03-01T00:00:00Z'), ['hour 2024-02-29T22:00:00.000Z']);
    assert.deepEqual(await starts('unit=hour&startDate=2024-02-29T22:00:00.001Z'), ['hour 2024-03-01T00:00:00.000Z']);
    assert.deepEqual(await starts('startDate=2024-03-01T00:00:00Z&endDate=2024-03-01T00:00:00Z'), []);
    assert.deepEqual(await starts('startDate=2024-02-01T00:00:00Z&endDate=2024-03-01T00:00:00Z'), [
      'hour 2024-02-29T22:00:00.000Z',
      'day 2024-02-29T00:00:00.000Z',
      'month 2024-02-01T00:00:00.000Z',
    ]);
    await get(`${base}?startDate=2024-03-01`, shop.admin, 400);
    await get(`${base}?endDate=yesterday`, shop.admin, 400);
  });

  it('filters the global endpoint by tenant and project, and the tenant endpoint by project', async () => {
    const who = (rows: Summary[]) => rows.map((r) => `${r.tenant}/${r.project}`);
    assert.deepEqual(who(await get('/rest/statistics?unit=year', shop.op)), ['acme/other', 'acme/shop', 'beta/web']);
    assert.deepEqual(who(await get('/rest/statistics?unit=month&tenant=beta', shop.op)), ['beta/web']);
    assert.deepEqual(who(await get('/rest/statistics?unit=year&tenant=acme&tenant=beta&project=other', shop.op)), ['acme/other']);
    assert.deepEqual(who(await get('/rest/statistics?unit=year&tenant=acme,beta&project=web,shop', shop.op)), ['acme/shop', 'beta/web']);
    assert.deepEqual(who(await get('/rest/statistics?unit=year&tenant=nobody', shop.op)), []);
    assert.deepEqual(who(await get('/rest/statistics/tenants/acme?unit=year', shop.op)), ['acme/other', 'acme/shop']);
    assert.deepEqual(who(await get('/rest/statistics/tenants/acme?unit=year&project=other', shop.op)), ['acme/other']);
    const web = (await get('/rest/statistics/tenants/beta?unit=hour', shop.op))[0]!;
    assert.deepEqual([web.tickets, web.errors, web.startDate], [1, 0, '2024-02-29T22:00:00.000Z']);
  });

  it('lets operators see all, a project admin its own project only, and nobody else', async () => {
    const who = (rows: Summary[]) => rows.map((r) => `${r.tenant}/${r.project}`);
    // A project admin on the tenant endpoint sees its own project, whatever it filters.
    assert.deepEqual(who(await get('/rest/statistics/tenants/acme?unit=year', shop.admin)), ['acme/shop']);
    assert.deepEqual(who(await get('/rest/statistics/tenants/acme?unit=year&project=other', shop.admin)), []);
    await get('/rest/statistics', shop.admin, 403);
    await get('/rest/statistics/tenants/beta', shop.admin, 403);
    await get('/rest/statistics/tenants/acme/projects/other', shop.admin, 403);
    for (const path of ['/rest/statistics', '/rest/statistics/tenants/acme', '/rest/statistics/tenants/acme/projects/shop']) {
      await get(path, shop.jobs, 403);
      const res = await t.fetch(path);
      assert.equal(res.status, 401);
    }
  });

  it('answers POST with the same query parameters exactly as GET (the reference text shows a POST)', async () => {
    for (const [path, token] of [
      ['/rest/statistics?unit=year&tenant=acme&project=shop,other', shop.op],
      ['/rest/statistics/tenants/acme?unit=day&project=shop', shop.admin],
      ['/rest/statistics/tenants/acme/projects/shop?unit=hour&startDate=2024-03-01T00:00:00Z', shop.admin],
    ] as const) {
      const res = await t.fetch(path, { method: 'POST', token });
      const text = await res.text();
      assert.equal(res.status, 200, `${path}: ${text}`);
      assert.deepEqual(JSON.parse(text), await get(path, token), path);
      assert.ok((JSON.parse(text) as unknown[]).length > 0, path);
    }
    const bad = await t.fetch('/rest/statistics/tenants/acme/projects/shop?unit=week', { method: 'POST', token: shop.admin });
    assert.equal(bad.status, 400);
    assert.equal((await t.fetch('/rest/statistics', { method: 'POST', token: shop.admin })).status, 403);
    assert.equal((await t.fetch('/rest/statistics', { method: 'POST' })).status, 401);
  });

  it('adds media downloads, cache hits and uploads recorded by other steps', async () => {
    const at = Date.parse('2024-03-01T05:30:00Z');
    await recordUsage(t.server.ctx, 'acme', 'shop', at, { downloadRequests: 2, downloadBytes: 3000, downloadMsec: 40, cacheHits: 3 });
    await recordUsage(t.server.ctx, 'acme', 'shop', at + 60_000, { uploadRequests: 1, uploadBytes: 5000, uploadMsec: 12 });
    const [hour] = await get('/rest/statistics/tenants/acme/projects/shop?unit=hour&startDate=2024-03-01T05:00:00Z', shop.admin);
    assert.deepEqual(countersOf(hour!), { ...zero, downloadRequests: 2, downloadBytes: 3000, downloadMsec: 40, cacheHits: 3, uploadRequests: 1, uploadBytes: 5000, uploadMsec: 12 });
    const [day] = await get('/rest/statistics/tenants/acme/projects/shop?unit=day&startDate=2024-03-01T00:00:00Z', shop.admin);
    assert.deepEqual(countersOf(day!), { ...phase2, downloadRequests: 2, downloadBytes: 3000, downloadMsec: 40, cacheHits: 3, uploadRequests: 1, uploadBytes: 5000, uploadMsec: 12 });
  });

  it('describes SummaryStatus and the three endpoints in the OpenAPI document', async () => {
    const spec = (await (await t.fetch('/rest/openapi.json')).json()) as { paths: Record<string, { get?: { parameters?: { name: string }[] } }> };
    const params = (path: string) => (spec.paths[path]?.get?.parameters ?? []).map((p) => p.name).sort();
    assert.deepEqual(params('/rest/statistics'), ['endDate', 'project', 'startDate', 'tenant', 'unit']);
    assert.deepEqual(params('/rest/statistics/tenants/{tenant}'), ['endDate', 'project', 'startDate', 'tenant', 'unit']);
    assert.deepEqual(params('/rest/statistics/tenants/{tenant}/projects/{project}'), ['endDate', 'project', 'startDate', 'tenant', 'unit']);
    assert.match(JSON.stringify(spec), /"cacheHits"/);
    for (const path of ['/rest/statistics', '/rest/statistics/tenants/{tenant}', '/rest/statistics/tenants/{tenant}/projects/{project}']) {
      assert.deepEqual(Object.keys(spec.paths[path]!), ['get'], `${path}: GET is the documented method`);
    }
  });
});
