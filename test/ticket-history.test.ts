// Ticket history, a ticket's step timeline and its stored input, through HTTP on a running
// server with real workers.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, it } from 'node:test';
import { stepEvents } from '../src/store/index.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { zipOf } from './helpers/zip.js';

const grid = '<data><item id="A-1"><title>Espresso machine</title><price>249.90</price></item></data>';
// About 10^10 loop turns: runs until the time limit stops it, without using memory.
const endless = '#for i in range(100000) { for j in range(100000) { } }\nnever\n';

interface View {
  ticket: string;
  status: string | null;
  complete: boolean;
  created: string;
  foreignKey: string | null;
}
interface Page {
  tickets: View[];
  nextCursor: string | null;
}
interface Step {
  step: string;
  attempt: number;
  outcome: string;
  startedAt: string;
  endedAt: string | null;
  durationMs: number | null;
  errorCode: string | null;
}

describeEachStore('ticket history, timeline and input', (kind) => {
  let t: TestServer;
  let tokens: { op: string; jobs: string; admin: string };
  const ids: Record<string, string> = {};

  const history = async (query = '', token = tokens.jobs): Promise<Page> => {
    const res = await t.fetch(`/rest/tenants/acme/projects/shop/ticket-history${query}`, { token });
    assert.equal(res.status, 200, await res.clone().text());
    return (await res.json()) as Page;
  };
  const timeline = async (id: string, project = 'shop', token = tokens.jobs): Promise<Step[]> => {
    const res = await t.fetch(`/rest/tenants/acme/projects/${project}/tickets/${id}/timeline`, { token });
    assert.equal(res.status, 200, await res.clone().text());
    return ((await res.json()) as { steps: Step[] }).steps;
  };

  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 });
    tokens = await setupProject(t);
    await putFile(t, tokens.admin, 'tenants/acme/projects/shop/master-documents/broken.typ', '#let x = (\n');
    // One after the other, so creation times differ and the order is known.
    for (const [name, query] of [
      ['a', 'foreignKey=key-a'],
      ['b', 'foreignKey=key-b'],
      ['broken', 'foreignKey=key-c&documentTemplate=broken'],
      ['json', 'foreignKey=key-d'],
    ] as const) {
      const body = name === 'json' ? JSON.stringify({ title: 'From JSON' }) : grid;
      const [id] = await submit(t, tokens.jobs, body, { query, contentType: name === 'json' ? 'application/json' : 'application/xml' });
      ids[name] = id!;
      await waitComplete(t, tokens.jobs, id!);
      await new Promise((r) => setTimeout(r, 5));
    }
  });
  after(() => t.close());

  it('lists the tickets newest first, in pages that join up without gaps or repeats', async () => {
    const all = await history();
    assert.deepEqual(
      all.tickets.map((v) => v.ticket),
      [ids.json, ids.broken, ids.b, ids.a],
    );
    assert.equal(all.nextCursor, null);
    const first = all.tickets[0]!;
    for (const field of ['complete', 'tenant', 'project', 'ticket', 'status', 'next', 'messages', 'created', 'updated', 'redeliveries', 'processingMsecs', 'processingPages', 'errorCode', 'errorMessage', 'foreignKey', 'outputName', 'shipped', 'aggregate']) {
      assert.ok(field in first, `history entries carry ${field}`);
    }

    const seen: string[] = [];
    let query = '?limit=3';
    for (let pages = 0; pages < 5; pages++) {
      const page = await history(query);
      seen.push(...page.tickets.map((v) => v.ticket));
      if (!page.nextCursor) break;
      assert.equal(page.tickets.length, 3);
      query = `?limit=3&cursor=${page.nextCursor}`;
    }
    assert.deepEqual(seen, all.tickets.map((v) => v.ticket));
    const one = await history('?limit=1');
    assert.equal(one.tickets.length, 1);
    assert.notEqual(one.nextCursor, null);
  });

  it('filters by status, outcome, step and foreignKey', async () => {
    const ticketsOf = async (query: string) => (await history(query)).tickets.map((v) => v.ticket);
    assert.deepEqual(await ticketsOf('?status=failed'), [ids.broken]);
    assert.deepEqual(await ticketsOf('?status=renderpdf.failed'), [ids.broken]);
    assert.deepEqual(await ticketsOf('?status=renderpdf.succeeded'), [ids.json, ids.b, ids.a]);
    assert.deepEqual(await ticketsOf('?status=succeeded&foreignKey=key-b'), [ids.b]);
    assert.deepEqual(await ticketsOf('?status=complete'), [ids.json, ids.broken, ids.b, ids.a]);
    assert.deepEqual(await ticketsOf('?status=open'), []);
    assert.deepEqual(await ticketsOf('?step=renderpdf'), [ids.json, ids.broken, ids.b, ids.a]);
    assert.deepEqual(await ticketsOf('?step=upload'), []);
    assert.deepEqual(await ticketsOf('?foreignKey=key-c'), [ids.broken]);
    assert.deepEqual(await ticketsOf('?foreignKey=nobody'), []);
    // Word characters only: a LIKE wildcard is refused rather than matching everything.
    const wild = await t.fetch('/rest/tenants/acme/projects/shop/ticket-history?status=%25', { token: tokens.jobs });
    assert.equal(wild.status, 400);
  });

  it('answers bad history requests with 400, 401, 403, 404 and 406', async () => {
    const base = '/rest/tenants/acme/projects/shop/ticket-history';
    for (const query of ['?limit=0', '?limit=201', '?limit=many', '?status=Failed!', '?step=render-pdf', '?cursor=%21%21', '?cursor=bm9wZQ', `?cursor=${'A'.repeat(300)}`]) {
      const res = await t.fetch(base + query, { token: tokens.jobs });
      assert.equal(res.status, 400, query);
      const body = (await res.json()) as { code: string; message: string; details: unknown[] };
      assert.equal(body.code, 'bad_request', query);
      assert.ok(body.message.length > 5 && body.details.length > 0, query);
    }
    assert.equal((await t.fetch(base)).status, 401);
    assert.equal((await t.fetch(base, { token: 'not.a.token' })).status, 401);
    const other = await setupProject(t, 'acme', 'other');
    assert.equal((await t.fetch(base, { token: other.jobs })).status, 403);
    assert.equal((await t.fetch(base, { token: tokens.op })).status, 403);
    assert.equal((await t.fetch(base, { token: tokens.jobs, headers: { accept: 'application/xml' } })).status, 406);
    // A token outliving its project is revoked.
    const gone = await setupProject(t, 'acme', 'gone');
    assert.equal((await t.fetch('/rest/tenants/acme/projects/gone', { method: 'DELETE', token: tokens.op })).status, 200);
    assert.equal((await t.fetch('/rest/tenants/acme/projects/gone/ticket-history', { token: gone.jobs })).status, 401);
  });

  it('shows each step attempt with its outcome, times and error code', async () => {
    const ok = await timeline(ids.a!);
    assert.equal(ok.length, 1);
    assert.equal(ok[0]!.step, 'renderpdf');
    assert.equal(ok[0]!.attempt, 1);
    assert.equal(ok[0]!.outcome, 'succeeded');
    assert.equal(ok[0]!.errorCode, null);
    assert.ok(ok[0]!.endedAt && Date.parse(ok[0]!.endedAt) >= Date.parse(ok[0]!.startedAt));
    assert.equal(ok[0]!.durationMs, Date.parse(ok[0]!.endedAt) - Date.parse(ok[0]!.startedAt));

    const failed = await timeline(ids.broken!);
    assert.deepEqual(failed.map((s) => [s.step, s.attempt, s.outcome, s.errorCode]), [['renderpdf', 1, 'failed', '422']]);

    // Redelivered failures: one entry per attempt, numbered per step.
    const retry = await setupProject(t, 'acme', 'retry');
    await putFile(t, retry.admin, 'tenants/acme/projects/retry/master-documents/broken.typ', '#let x = (\n');
    await putFile(t, retry.admin, 'tenants/acme/projects/retry/renderpdf/config.ion', '{ redeliverOnError: [{ codePattern: "422", maxRedeliveries: 2, redeliverIntervalMillis: 0 }] }');
    const [id] = await submit(t, retry.jobs, grid, { project: 'retry', query: 'documentTemplate=broken' });
    const s = await waitComplete(t, retry.jobs, id!, 30_000, 'acme', 'retry');
    assert.equal(s.redeliveries, 2);
    const steps = await timeline(id!, 'retry', retry.jobs);
    assert.deepEqual(steps.map((x) => [x.step, x.attempt, x.outcome, x.errorCode]), [
      ['renderpdf', 1, 'failed', '422'],
      ['renderpdf', 2, 'failed', '422'],
      ['renderpdf', 3, 'failed', '422'],
    ]);
    // The rows go with their ticket.
    assert.equal((await stepEvents.listForTicket(t.server.ctx.db.kysely, id!)).length, 3);
    assert.equal((await t.fetch('/rest/tenants/acme/projects/retry', { method: 'DELETE', token: tokens.op })).status, 200);
    assert.deepEqual(await stepEvents.listForTicket(t.server.ctx.db.kysely, id!), []);
  });

  it('shows a step as running while it runs, then how it ended', async () => {
    const slow = await setupProject(t, 'acme', 'slow');
    await putFile(t, slow.admin, 'tenants/acme/projects/slow/master-documents/endless.typ', endless);
    await putFile(t, slow.admin, 'tenants/acme/projects/slow/renderpdf/config.ion', '{ maxExecutionMillis: 3000 }');
    const [id] = await submit(t, slow.jobs, grid, { project: 'slow', query: 'documentTemplate=endless' });
    const deadline = Date.now() + 20_000;
    let steps: Step[] = [];
    while (steps.length === 0) {
      assert.ok(Date.now() < deadline, 'the step never started');
      steps = await timeline(id!, 'slow', slow.jobs);
      if (steps.length === 0) await new Promise((r) => setTimeout(r, 50));
    }
    assert.deepEqual([steps[0]!.outcome, steps[0]!.endedAt, steps[0]!.durationMs], ['running', null, null]);
    await waitComplete(t, slow.jobs, id!, 30_000, 'acme', 'slow');
    const done = await timeline(id!, 'slow', slow.jobs);
    assert.deepEqual(done.map((x) => [x.outcome, x.errorCode]), [['failed', '504']]);
    assert.ok(done[0]!.durationMs! >= 2900, `${done[0]!.durationMs} ms`);
  });

  it('downloads the stored input with its content type', async () => {
    const xml = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${ids.a}/input`, { token: tokens.jobs, headers: { accept: '*/*' } });
    assert.equal(xml.status, 200);
    assert.equal(xml.headers.get('content-type'), 'application/xml');
    assert.equal(await xml.text(), grid);
    const json = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${ids.json}/input`, { token: tokens.admin, headers: { accept: 'application/json' } });
    assert.equal(json.status, 200);
    assert.match(json.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await json.json(), { title: 'From JSON' });

    // Incompressible bytes: intake refuses entries that expand more than 200:1.
    const zip = await zipOf({ 'data.xml': grid, 'images/a.bin': randomBytes(70_000) });
    const [zipId] = await submit(t, tokens.jobs, zip, { contentType: 'application/zip' });
    await waitComplete(t, tokens.jobs, zipId!);
    const res = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${zipId}/input`, { token: tokens.jobs, headers: { accept: 'application/zip' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/zip');
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), zip);

    const wrongAccept = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${ids.a}/input`, { token: tokens.jobs, headers: { accept: 'application/pdf' } });
    assert.equal(wrongAccept.status, 406);
    assert.equal((await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${ids.a}/input`, { headers: { accept: '*/*' } })).status, 401);
    assert.equal((await t.fetch(`/rest/tenants/acme/projects/shop/tickets/NOTATICKET/input`, { token: tokens.jobs, headers: { accept: '*/*' } })).status, 404);
  });

  it("answers another tenant's ticket id with 404, and its token with 403", async () => {
    const other = await setupProject(t, 'globex', 'shop');
    const [foreign] = await submit(t, other.jobs, grid, { tenant: 'globex' });
    await waitComplete(t, other.jobs, foreign!, 30_000, 'globex', 'shop');
    for (const path of ['status', 'timeline', 'input']) {
      const res = await t.fetch(`/rest/tenants/acme/projects/shop/tickets/${foreign}/${path}`, { token: tokens.jobs, headers: { accept: '*/*' } });
      assert.equal(res.status, 404, path);
      assert.equal(((await res.json()) as { code: string }).code, 'not_found');
      const crossed = await t.fetch(`/rest/tenants/globex/projects/shop/tickets/${foreign}/${path}`, { token: tokens.jobs, headers: { accept: '*/*' } });
      assert.equal(crossed.status, 403, path);
    }
    assert.ok(!(await history()).tickets.some((v) => v.ticket === foreign));
  });
});
