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

  it('claims the next due ticket in the commit of a step, never the committed ticket itself', async () => {
    const { kysely: db, dialect } = t.server.ctx.db;
    // Before the first test's tickets are due, and still days after the present.
    const later = at - 5 * 24 * 3_600_000;
    const rows = [
      // The ticket whose step commits; its next step is due at once, but another attempt must take it.
      row('01COMMITCLAIM0000000000000', { project: 'commit', next: 'renderpdf', run_after: later, lease_owner: 'committer', lease_until: later + 60_000, attempt: 1 }),
      row('01COMMITCLAIM0000000000002', { project: 'commit', priority: 2, run_after: later }),
      row('01COMMITCLAIM0000000000001', { project: 'commit', priority: 1, run_after: later }),
    ];
    await tickets.insertTicketsCounted(db, dialect, rows as never, 'claim-test');
    const ref = { id: '01COMMITCLAIM0000000000000', attempt: 1, owner: 'committer' };
    const patch = { status: 'renderpdf.succeeded', next: 'upload', run_after: later, updated: later };
    const end = { outcome: 'succeeded' as const, errorCode: null, at: later };
    const first = await tickets.completeStep(db, dialect, ref, patch, [], [], end, { now: later, until: later + 30_000 });
    assert.equal(first.committed, true);
    assert.deepEqual([first.claimed?.id, first.claimed?.attempt, first.claimed?.lease_owner, first.claimed?.lease_until, first.claimed?.next], ['01COMMITCLAIM0000000000001', 1, 'committer', later + 30_000, 'renderpdf'], 'the first due ticket in claim order, leased to the committing worker');
    const committed = (await tickets.findTicket(db, ref.id))!;
    assert.deepEqual([committed.status, committed.next, committed.lease_owner, committed.attempt], ['renderpdf.succeeded', 'upload', null, 1], 'the committed ticket is due for its next step, unclaimed');
    // A commit under a lost lease writes nothing; on SQLite it claims nothing either.
    const lost = await tickets.completeStep(db, dialect, ref, patch, [], [], end, { now: later, until: later + 30_000 });
    assert.equal(lost.committed, false);
    if (kind === 'sqlite') assert.equal(lost.claimed, null);
    const started = await db.selectFrom('step_events').select(['ticket', 'attempt', 'step']).where('ticket', 'like', '01COMMITCLAIM%').orderBy('ticket').execute();
    const claimedIds = [first.claimed!.id, ...(lost.claimed ? [lost.claimed.id] : [])].sort();
    assert.deepEqual(started.map((e) => e.ticket), claimedIds, 'each attempt claimed in a commit starts in the timeline');
    // Without a claim asked for, none is made.
    const second = (await tickets.claimDue(db, dialect, 'claimer', later, 30_000, 5)).map((r) => r.id).sort();
    assert.deepEqual(second, ['01COMMITCLAIM0000000000000', '01COMMITCLAIM0000000000002'].filter((id) => !claimedIds.includes(id)), 'what is left is claimed as usual, the committed ticket included');
  });
});
