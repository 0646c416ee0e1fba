// Idempotent submission (Idempotency-Key) through HTTP on a running service, on both stores.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { requestHash } from '../src/intake/idempotency.js';
import { idempotencyKeys } from '../src/store/index.js';
import { runHousekeeping } from '../src/tickets/retention/index.js';
import { testClock } from './helpers/clock.js';
import { setupProject, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const grid = '<data><item><title>Idempotent sheet</title></item></data>';
const DAY_MS = 24 * 3600_000;

interface ErrorBody {
  status: number;
  code: string;
  message: string;
  details?: { field?: string; message: string }[];
}

describeEachStore('idempotent submission', (kind) => {
  let t: TestServer;
  const clock = testClock();
  let op: string;
  let serial = 0;

  /** A fresh project (so counts start at zero) and its jobs token. */
  const project = async (): Promise<{ name: string; jobs: string }> => {
    const name = `p${++serial}`;
    const tokens = await setupProject(t, 'acme', name);
    op = tokens.op;
    return { name, jobs: tokens.jobs };
  };

  const post = (
    p: { name: string; jobs: string },
    key: string | undefined,
    opts: { body?: string; contentType?: string; query?: string; target?: string; accept?: string } = {},
  ): Promise<Response> =>
    t.fetch(`/rest/tenants/acme/projects/${p.name}/${opts.target ?? 'renderpdf'}${opts.query ? `?${opts.query}` : ''}`, {
      method: 'POST',
      token: p.jobs,
      body: opts.body ?? grid,
      headers: { 'content-type': opts.contentType ?? 'application/xml', ...(key !== undefined ? { 'idempotency-key': key } : {}), ...(opts.accept ? { accept: opts.accept } : {}) },
    });

  /** Expects a 202 and returns its body as text (compared byte for byte between answers). */
  const accepted = async (res: Response): Promise<string> => {
    const text = await res.text();
    assert.equal(res.status, 202, text);
    return text;
  };
  const ids = (body: string): string[] => (JSON.parse(body) as { tickets: { id: string }[] }).tickets.map((x) => x.id);

  /** Every ticket of a project, open or finished, from the ticket history. */
  const ticketIds = async (p: { name: string; jobs: string }): Promise<string[]> => {
    const res = await t.fetch(`/rest/tenants/acme/projects/${p.name}/ticket-history?limit=200`, { token: p.jobs });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return (JSON.parse(text) as { tickets: { ticket: string }[] }).tickets.map((x) => x.ticket).sort();
  };

  /** The project's `tickets` counter of the statistics (the current year). */
  const counted = async (p: { name: string }): Promise<number> => {
    const res = await t.fetch(`/rest/statistics/tenants/acme/projects/${p.name}?unit=year`, { token: op });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return (JSON.parse(text) as { tickets: number }[]).reduce((sum, r) => sum + r.tickets, 0);
  };

  const refused = async (res: Response, status: number, code?: string): Promise<ErrorBody> => {
    const text = await res.text();
    assert.equal(res.status, status, text);
    const body = JSON.parse(text) as ErrorBody;
    if (code) assert.equal(body.code, code);
    assert.ok(body.details?.some((d) => /^idempotency-key$/i.test(d.field ?? '')), `names the header: ${text}`);
    return body;
  };

  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50, housekeepingMs: 0 }, { now: clock.now });
  });
  after(() => t.close());

  it('answers the same key twice with the same 202 body and creates one ticket, counted once', async () => {
    const p = await project();
    const first = await accepted(await post(p, 'order-4711'));
    const again = await accepted(await post(p, 'order-4711'));
    assert.equal(again, first);
    const [id] = ids(first);
    assert.deepEqual(await ticketIds(p), [id]);
    assert.equal((await waitComplete(t, p.jobs, id!, undefined, 'acme', p.name)).status, 'renderpdf.succeeded');
    // After the ticket is done the key still answers with it.
    assert.equal(await accepted(await post(p, 'order-4711')), first);
    assert.deepEqual(await ticketIds(p), [id]);
    assert.equal(await counted(p), 1);
    // Without the header (or with another key) every request is a new job.
    assert.notDeepEqual(ids(await accepted(await post(p, undefined))), [id]);
    assert.notDeepEqual(ids(await accepted(await post(p, 'order-4712'))), [id]);
    assert.equal((await ticketIds(p)).length, 3);
  });

  it('refuses the key with a different body, Content-Type, query or target with 422, storing nothing', async () => {
    const p = await project();
    const first = await accepted(await post(p, 'k1'));
    const variants = [
      { body: '<data><item><title>Another sheet</title></item></data>' },
      { body: JSON.stringify({ title: 'x' }), contentType: 'application/json' },
      { contentType: 'application/xml; charset=utf-8' },
      { query: 'foreignKey=other' },
      { target: 'renderpptx' },
    ];
    for (const v of variants) {
      const body = await refused(await post(p, 'k1', v), 422, 'idempotency_mismatch');
      assert.match(body.message, /Idempotency-Key/);
    }
    assert.deepEqual(await ticketIds(p), ids(first));
    // The key still stands for the first request.
    assert.equal(await accepted(await post(p, 'k1')), first);
    // Query parameters are compared by name and value, not by their order.
    const ordered = await accepted(await post(p, 'k2', { query: 'foreignKey=a&documentTemplate=default' }));
    assert.equal(await accepted(await post(p, 'k2', { query: 'documentTemplate=default&foreignKey=a' })), ordered);
    assert.equal((await ticketIds(p)).length, 2);
  });

  it('creates one job for concurrent requests with one key: each gets the same 202 body or a 409', async () => {
    const p = await project();
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(p, 'burst')));
    const bodies: string[] = [];
    for (const res of answers) {
      if (res.status === 409) await refused(res, 409, 'idempotency_in_progress');
      else bodies.push(await accepted(res));
    }
    assert.ok(bodies.length >= 1, 'at least one request was accepted');
    assert.equal(new Set(bodies).size, 1, 'every 202 has the same body');
    assert.deepEqual(await ticketIds(p), ids(bodies[0]!));
    // Once the first is done, a retry of a 409 gets the 202.
    assert.equal(await accepted(await post(p, 'burst')), bodies[0]);
  });

  it('refuses an empty key and one of 256 characters with 400 naming the header; 255 characters work', async () => {
    const p = await project();
    await refused(await post(p, ''), 400, 'bad_request');
    await refused(await post(p, 'k'.repeat(256)), 400, 'bad_request');
    assert.deepEqual(await ticketIds(p), []);
    const long = 'k'.repeat(255);
    const first = await accepted(await post(p, long));
    assert.equal(await accepted(await post(p, long)), first);
    assert.equal((await ticketIds(p)).length, 1);
  });

  it('answers a repeated synchronous request with the same ticket\'s PDF', async () => {
    const p = await project();
    const sync = () => post(p, 'sync-1', { query: 'timeToWait=300000', accept: 'application/pdf' });
    const first = await sync();
    assert.equal(first.status, 200, first.status === 200 ? '' : await first.text());
    assert.equal(first.headers.get('content-type'), 'application/pdf');
    const pdf = Buffer.from(await first.arrayBuffer());
    const ticket = first.headers.get('x-ticket-id');
    assert.ok(ticket);
    const again = await sync();
    assert.equal(again.status, 200, again.status === 200 ? '' : await again.text());
    assert.equal(again.headers.get('x-ticket-id'), ticket);
    assert.ok(Buffer.from(await again.arrayBuffer()).equals(pdf), 'the same PDF bytes');
    assert.deepEqual(await ticketIds(p), [ticket]);
  });

  it('does not use up the key on a refused request: the corrected request gets it', async () => {
    const p = await project();
    const bad = await post(p, 'fix-me', { query: 'documentTemplate=nosuch' });
    assert.equal(bad.status, 400, await bad.clone().text());
    assert.match(await bad.text(), /template nosuch not found/);
    assert.deepEqual(await ticketIds(p), []);
    const good = await accepted(await post(p, 'fix-me'));
    assert.equal(ids(good).length, 1);
    assert.equal(await accepted(await post(p, 'fix-me')), good);
  });

  it('answers 409 while the key is pending, and takes over a key left pending by a dead process', async () => {
    const p = await project();
    const db = t.server.ctx.db.kysely;
    const id = { tenant: 'acme', project: p.name, key: 'crashed' };
    const hash = requestHash({ target: 'pdf', contentType: 'application/xml', query: {}, body: Buffer.from(grid) });
    const recent = clock.now() - 60_000;
    assert.ok(await idempotencyKeys.claim(db, id, hash, recent));
    await refused(await post(p, 'crashed'), 409, 'idempotency_in_progress');
    assert.deepEqual(await ticketIds(p), []);
    // Pending for over 2 minutes: its request never finished intake.
    assert.ok(await idempotencyKeys.remove(db, id, recent));
    assert.ok(await idempotencyKeys.claim(db, id, hash, clock.now() - 121_000));
    const taken = await accepted(await post(p, 'crashed'));
    assert.equal(await accepted(await post(p, 'crashed')), taken);
    assert.deepEqual(await ticketIds(p), ids(taken));
  });

  it('keys live 24 h: then the same key makes a new job, and housekeeping deletes the old rows', async () => {
    const p = await project();
    const first = await accepted(await post(p, 'daily'));
    const other = await accepted(await post(p, 'other'));
    for (const id of [...ids(first), ...ids(other)]) await waitComplete(t, p.jobs, id, undefined, 'acme', p.name);
    clock.advance(DAY_MS - 60_000);
    assert.equal(await accepted(await post(p, 'daily')), first, 'still within 24 h');
    clock.advance(61_000);
    const next = await accepted(await post(p, 'daily'));
    assert.notEqual(next, first);
    assert.equal((await ticketIds(p)).length, 3);
    assert.equal(await accepted(await post(p, 'daily')), next);
    const swept = await runHousekeeping(t.server.ctx, { now: clock.now(), batch: 1 });
    assert.ok(swept.idempotencyKeys >= 1, JSON.stringify(swept));
    assert.equal(await idempotencyKeys.find(t.server.ctx.db.kysely, { tenant: 'acme', project: p.name, key: 'other' }), undefined);
    assert.ok(await idempotencyKeys.find(t.server.ctx.db.kysely, { tenant: 'acme', project: p.name, key: 'daily' }), 'the new row stays');
    await waitComplete(t, p.jobs, ids(next)[0]!, undefined, 'acme', p.name);
  });
});
