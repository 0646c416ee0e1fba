import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { PRIORITY_COUNT_MAX } from '../src/store/tickets.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { finishedTicketRow } from './helpers/ticket-rows.js';
import { describeEachStore } from './helpers/stores.js';

const doc = '<data><item><title>Queued</title><price>1</price></item></data>';

describeEachStore('fair priority, parallel limits and quotas', (kind) => {
  let t: TestServer;
  let op: string;
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, workerConcurrency: 2, pollMs: 50 });
    op = (await setupProject(t, 'acme', 'a')).op;
    await setupProject(t, 'acme', 'b');
    await setupProject(t, 'acme', 'c');
    await setupProject(t, 'acme', 'q');
    await setupProject(t, 'acme', 'r');
  });
  after(() => t.close());

  const openCount = async (project: string) =>
    Number((await t.server.ctx.db.kysely.selectFrom('tickets').select((eb) => eb.fn.countAll<number>().as('n')).where('project', '=', project).where('complete', '=', 0).executeTakeFirstOrThrow()).n);

  it("runs a small project's tickets before a flooding project's backlog", async () => {
    const a = await t.token('acme', 'a', 'jobs');
    const b = await t.token('acme', 'b', 'jobs');
    const flood: Promise<string[]>[] = [];
    for (let w = 0; w < 10; w++) flood.push((async () => { const ids: string[] = []; for (let i = 0; i < 50; i++) ids.push(...(await submit(t, a, doc, { project: 'a' }))); return ids; })());
    await Promise.all(flood);
    const backlog = await openCount('a');
    assert.ok(backlog > 100, `A has a backlog (${backlog})`);
    const bIds: string[] = [];
    for (let i = 0; i < 5; i++) bIds.push(...(await submit(t, b, doc, { project: 'b' })));
    // No time limit of its own: the assertion is how much of A's backlog ran first, not how fast.
    for (const id of bIds) await waitComplete(t, b, id, undefined, 'acme', 'b');
    const doneOfA = backlog - (await openCount('a'));
    assert.ok(doneOfA < backlog / 2, `B finished after ${doneOfA} of A's ${backlog} queued tickets`);
    while ((await openCount('a')) > 0) await new Promise((r) => setTimeout(r, 100));
  });

  it('keeps a project to maxParallelRenders', async () => {
    const admin = await t.token('acme', 'c', 'admin');
    await putFile(t, admin, 'tenants/acme/projects/c/restapi/config.ion', '{ maxParallelRenders: 1 }');
    await putFile(t, admin, 'tenants/acme/projects/c/master-documents/slowish.typ', '#let n = 0\n#for i in range(400000) { n += 1 }\n#n\n');
    const c = await t.token('acme', 'c', 'jobs');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(...(await submit(t, c, doc, { project: 'c', query: 'documentTemplate=slowish' })));
    let most = 0;
    const db = t.server.ctx.db.kysely;
    while ((await openCount('c')) > 0) {
      const leased = await db.selectFrom('tickets').select('id').where('project', '=', 'c').where('lease_owner', 'is not', null).execute();
      most = Math.max(most, leased.length);
      await new Promise((r) => setTimeout(r, 5));
    }
    assert.equal(most, 1);
    for (const id of ids) assert.equal((await waitComplete(t, c, id, 10_000, 'acme', 'c')).status, 'renderpdf.succeeded');
  });

  it('counts a flooding project\'s last minute only up to a bound, and a quiet one exactly', async () => {
    // Tickets the project accepted in the last minute, written directly (done, so no worker
    // takes them): more than the count goes up to.
    const db = t.server.ctx.db.kysely;
    const now = Date.now();
    const rows = Array.from({ length: PRIORITY_COUNT_MAX + 100 }, (_, i) => finishedTicketRow(`0FLOOD${String(i).padStart(20, '0')}`, 'r', now - 1000));
    for (let i = 0; i < rows.length; i += 200) await db.insertInto('tickets').values(rows.slice(i, i + 200)).execute();
    const r = await t.token('acme', 'r', 'jobs');
    const [flooded] = await submit(t, r, doc, { project: 'r' });
    const b = await t.token('acme', 'b', 'jobs');
    const before = Number((await db.selectFrom('tickets').select((eb) => eb.fn.countAll<number>().as('n')).where('project', '=', 'b').where('created', '>=', Date.now() - 50_000).executeTakeFirstOrThrow()).n);
    const [quiet] = await submit(t, b, doc, { project: 'b' });
    const priorityOf = async (id: string) => (await db.selectFrom('tickets').select('priority').where('id', '=', id).executeTakeFirstOrThrow()).priority;
    assert.equal(await priorityOf(flooded!), PRIORITY_COUNT_MAX);
    assert.ok((await priorityOf(quiet!)) >= before && (await priorityOf(quiet!)) <= 10, `project b's priority counts its few recent tickets: ${await priorityOf(quiet!)} (${before} seen)`);
    assert.equal((await waitComplete(t, r, flooded!, undefined, 'acme', 'r')).status, 'renderpdf.succeeded');
  });

  it('answers 402 once the monthly quota is used, storing nothing', async () => {
    const admin = await t.token('acme', 'q', 'admin');
    await putFile(t, admin, 'tenants/acme/projects/q/restapi/config.ion', '{ quota: { ticketsPerMonth: 2 } }');
    const q = await t.token('acme', 'q', 'jobs');
    await submit(t, q, doc, { project: 'q' });
    await submit(t, q, doc, { project: 'q' });
    const count = async () => (await t.server.ctx.db.kysely.selectFrom('tickets').select('id').where('project', '=', 'q').execute()).length;
    const res = await t.fetch('/rest/tenants/acme/projects/q/renderpdf', { method: 'POST', token: q, body: doc, headers: { 'content-type': 'application/xml' } });
    assert.equal(res.status, 402);
    assert.match(((await res.json()) as { message: string }).message, /quota exceeded.*2 of 2/);
    assert.equal(await count(), 2);
    // A fanout that would pass the quota is refused whole.
    await putFile(t, admin, 'tenants/acme/projects/q/restapi/config.ion', '{ quota: { ticketsPerMonth: 4 }, fanout: { enabled: true, itemAttribute: "" } }');
    const fan = await t.fetch('/rest/tenants/acme/projects/q/renderpdf', { method: 'POST', token: q, body: '<data><item/><item/><item/></data>', headers: { 'content-type': 'application/xml' } });
    assert.equal(fan.status, 402);
    assert.equal(await count(), 2);
    // A tenant-wide quota counts every project of the tenant.
    await putFile(t, op, 'tenants/acme/restapi/config.ion', '{ quota: { tenantTicketsPerMonth: 5 } }');
    await putFile(t, admin, 'tenants/acme/projects/q/restapi/config.ion', '{ quota: { ticketsPerMonth: 100 } }');
    const tenantRes = await t.fetch('/rest/tenants/acme/projects/q/renderpdf', { method: 'POST', token: q, body: doc, headers: { 'content-type': 'application/xml' } });
    assert.equal(tenantRes.status, 402);
    assert.match(((await tenantRes.json()) as { message: string }).message, /tenant acme/);
    await t.fetch('/rest/repository/files/tenants/acme/restapi/config.ion', { method: 'DELETE', token: op });
  });
});
