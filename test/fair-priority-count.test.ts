import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { RECENT_COUNT_REFRESH_MS } from '../src/store/recent-ticket-counts.js';
import { setupProject, submit } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { finishedTicketRow } from './helpers/ticket-rows.js';
import { describeEachStore } from './helpers/stores.js';

const doc = '<data><item><title>Counted</title><price>1</price></item></data>';

// A new ticket's priority is its project's tickets of the last minute. The count is read from
// the store about once a second and carried forward with this process's own tickets
// (src/store/recent-ticket-counts.ts); the clock is injected, so no test waits for it.
describeEachStore('fair priority counted from the store once a second', (kind) => {
  let t: TestServer;
  let clock = Date.now();
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 }, { now: () => clock });
    await setupProject(t, 'acme', 'counted');
  });
  after(() => t.close());

  const priorityOf = async (id: string) =>
    (await t.server.ctx.db.kysely.selectFrom('tickets').select('priority').where('id', '=', id).executeTakeFirstOrThrow()).priority;

  /** Tickets of the project written straight into the store, as another process would, `ago` ms before now. */
  const storedElsewhere = async (n: number, ago: number) => {
    const at = clock - ago;
    const rows = Array.from({ length: n }, (_, i) => finishedTicketRow(`0ELSEWHERE${String(at)}${String(i).padStart(6, '0')}`, 'counted', at));
    await t.server.ctx.db.kysely.insertInto('tickets').values(rows).execute();
  };

  it("counts its own tickets at once, other processes' within a second, and only the last minute's", async () => {
    const jobs = await t.token('acme', 'counted', 'jobs');
    const next = async () => priorityOf((await submit(t, jobs, doc, { project: 'counted' }))[0]!);

    assert.deepEqual([await next(), await next(), await next()], [0, 1, 2], 'each ticket counts the ones this process stored before it');
    await storedElsewhere(5, 1000);
    assert.equal(await next(), 3, 'within the second, the count goes on from its last reading');

    clock += RECENT_COUNT_REFRESH_MS;
    assert.equal(await next(), 4 + 5, "a second later it is read again: the other process's five tickets count");
    assert.equal(await next(), 10);

    clock += 61_000;
    assert.equal(await next(), 0, 'a minute later none of them is recent');
  });
});
