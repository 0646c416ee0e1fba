import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { tickets } from '../src/store/index.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

// The claim itself, on the real databases: due tickets go in priority, due time and id order,
// one lease each, skipping live leases and projects at their parallel limit; an expired lease is
// taken over as a redelivery. The tickets are due only at a time far ahead, so the server's own
// worker (which claims at the present) never touches them.
describeEachStore('claim order', (kind) => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1 });
  });
  after(() => t.close());

  const at = Date.now() + 10 * 24 * 3_600_000;
  const row = (id: string, fields: Record<string, unknown> = {}) => ({
    id, tenant: 'claims', project: 'order', user_name: 'u', target: 'pdf', status: null, next: 'renderpdf', complete: 0, run_after: at, priority: 0,
    lease_owner: null, lease_until: null, attempt: 0, redeliveries: 0, messages: '[]', error_code: null, error_message: null,
    params: '{}', input_type: 'xml', input_inline: Buffer.from('<data/>'), input_key: null, input_size: 7, foreign_key: null, processing_msecs: 0,
    processing_pages: 0, group_id: null, part_index: null, output_name: null, shipped: 0, created: at, updated: at, completed: null,
    keep_input_until: null, aggregate_id: null, max_parallel: null, ...fields,
  });

  it('claims due tickets one lease each, in priority, due time and id order, and takes over expired leases', async () => {
    const { kysely: db, dialect } = t.server.ctx.db;
    const rows = [
      row('01CLAIMORDER00000000000005', { priority: 5 }),
      row('01CLAIMORDER00000000000002', { priority: 1, run_after: at - 1 }),
      row('01CLAIMORDER00000000000003', { priority: 1 }),
      row('01CLAIMORDER00000000000001', { priority: 1 }),
      row('01CLAIMORDER00000000000004', { priority: 2, lease_owner: 'gone', lease_until: at - 1, attempt: 1 }),
      row('01CLAIMORDER0000000000LIVE', { priority: 0, lease_owner: 'other', lease_until: at + 60_000, attempt: 1 }),
      // Its project allows one render at a time and already runs one (the live lease below).
      row('01CLAIMORDER0000000LIMITED', { project: 'limited', priority: 0, max_parallel: 1 }),
      row('01CLAIMORDER00000000000BUSY', { project: 'limited', priority: 9, lease_owner: 'other', lease_until: at + 60_000, attempt: 1, max_parallel: 1 }),
      row('01CLAIMORDER0000000NOTDUE00', { priority: 0, run_after: at + 1 }),
    ];
    await tickets.insertTicketsCounted(db, dialect, rows as never, 'claim-test');
    // PostgreSQL returns the rows of one claim in no particular order: compared by id.
    const claim = async (limit: number) =>
      (await tickets.claimDue(db, dialect, 'claimer', at, 30_000, limit)).map((r) => [r.id, r.attempt, r.redeliveries, r.lease_owner, r.lease_until]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    assert.deepEqual(await claim(1), [['01CLAIMORDER00000000000002', 1, 0, 'claimer', at + 30_000]], 'priority first, then the earlier due time');
    const next = await claim(2);
    assert.deepEqual(next.map((r) => r[0]), ['01CLAIMORDER00000000000001', '01CLAIMORDER00000000000003'], 'then by id, two at once (the next two in order)');
    assert.deepEqual(await claim(5), [
      ['01CLAIMORDER00000000000004', 2, 1, 'claimer', at + 30_000],
      ['01CLAIMORDER00000000000005', 1, 0, 'claimer', at + 30_000],
    ], 'the expired lease is taken over and counted as a redelivery; live leases, the limited project and the ticket not yet due stay');
    assert.deepEqual(await claim(1), []);
    const started = await db.selectFrom('step_events').select(['ticket', 'attempt', 'step']).where('ticket', 'like', '01CLAIMORDER%').orderBy('ticket').execute();
    assert.deepEqual(started.map((e) => [e.ticket, e.attempt, e.step]), [
      ['01CLAIMORDER00000000000001', 1, 'renderpdf'],
      ['01CLAIMORDER00000000000002', 1, 'renderpdf'],
      ['01CLAIMORDER00000000000003', 1, 'renderpdf'],
      ['01CLAIMORDER00000000000004', 2, 'renderpdf'],
      ['01CLAIMORDER00000000000005', 1, 'renderpdf'],
    ], 'each claimed attempt starts in the timeline');
  });
});
