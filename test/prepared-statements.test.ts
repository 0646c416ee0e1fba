import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { fieldSlots, Prepared, rowSlots } from '../src/store/prepared.js';
import { tickets } from '../src/store/index.js';
import { setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

// Statements compiled once and run with each call's values, on the real databases: every value
// lands where its name says, shapes do not mix, and a missing value is an error, not a marker
// written into a row.
describeEachStore('prepared statements', (kind) => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 });
  });
  after(() => t.close());

  type Meta = { key: string; value: string };
  const upsert = new Prepared<{ rows: readonly Meta[] }, unknown>((db, v, shape) =>
    db
      .insertInto('meta')
      .values(rowSlots<Meta, typeof v>(v, 'rows', Number(shape), ['key', 'value']))
      .onConflict((oc) => oc.column('key').doUpdateSet((eb) => ({ value: eb.ref('excluded.value') }))),
  );
  const rename = new Prepared<{ set: Partial<Meta>; key: string }, unknown>((db, v, shape) =>
    db.updateTable('meta').set(fieldSlots<Partial<Meta>, typeof v>(v, 'set', shape.split(','))).where('key', '=', v.key),
  );
  const read = new Prepared<{ prefix: string; limit: number }, { key: string; value: string }>((db, v) =>
    db.selectFrom('meta').select(['key', 'value']).where('key', 'like', v.prefix).orderBy('key').limit(v.limit),
  );

  it('puts each value where its name says, for every shape, and refuses a run without a value', async () => {
    const db = t.server.ctx.db.kysely;
    await upsert.execute(db, db, { rows: [{ key: 'prep:a', value: 'one' }] }, '1');
    await upsert.execute(db, db, { rows: [{ key: 'prep:b', value: 'two' }, { key: 'prep:c', value: 'three' }] }, '2');
    await db.transaction().execute((trx) => upsert.execute(db, trx, { rows: [{ key: 'prep:a', value: 'uno' }] }, '1'));
    assert.deepEqual((await read.execute(db, db, { prefix: 'prep:%', limit: 10 })).rows, [
      { key: 'prep:a', value: 'uno' },
      { key: 'prep:b', value: 'two' },
      { key: 'prep:c', value: 'three' },
    ]);
    assert.deepEqual((await read.execute(db, db, { prefix: 'prep:%', limit: 2 })).rows.map((r) => r.key), ['prep:a', 'prep:b']);
    await assert.rejects(read.execute(db, db, { prefix: 'prep:%' } as never), /prepared statement: no value for limit/);
    await assert.rejects(upsert.execute(db, db, { rows: [{ key: 'prep:d', value: 'four' }] }, '2'), /prepared statement: no row 1 in rows/);
    await rename.execute(db, db, { set: { value: 'drei', key: 'ignored: not in the shape' }, key: 'prep:c' }, 'value');
    assert.deepEqual((await read.execute(db, db, { prefix: 'prep:%', limit: 10 })).rows.map((r) => r.value), ['uno', 'two', 'drei']);
    const markers = await db.selectFrom('meta').select('key').where('value', 'like', '%pressroom-slot%').execute();
    assert.deepEqual(markers, []);
  });

  it('claims and completes tickets through the compiled statements: leases, attempts, artifacts, usage and timeline are the ticket’s own', async () => {
    const { jobs } = await setupProject(t);
    const ids = (await Promise.all([1, 2, 3].map((i) => submit(t, jobs, `<data><item id="${i}"><title>Prepared ${i}</title></item></data>`)))).flat();
    for (const id of ids) assert.equal((await waitComplete(t, jobs, id!)).status, 'renderpdf.succeeded');
    const db = t.server.ctx.db.kysely;
    for (const id of ids) {
      const row = (await tickets.findTicket(db, id!))!;
      assert.deepEqual([row.complete, row.attempt, row.lease_owner, row.lease_until, row.next], [1, 1, null, null, null]);
      const names = (await tickets.listArtifacts(db, id!)).map((a) => [a.name, a.ticket]);
      assert.deepEqual(names, [`${id}.content.xml`, `${id}.pdf`, `${id}.typst.log`].map((n) => [n, id]));
      const timeline = await db.selectFrom('step_events').selectAll().where('ticket', '=', id!).execute();
      assert.deepEqual(timeline.map((e) => [e.attempt, e.step, e.outcome]), [[1, 'renderpdf', 'succeeded']]);
    }
    // Each unit's intervals together count the three (an hour may have turned meanwhile).
    const usage = await db.selectFrom('stats').select(['unit', 'tickets']).where('tenant', '=', 'acme').where('project', '=', 'shop').execute();
    const perUnit = new Map<string, number>();
    for (const u of usage) perUnit.set(u.unit, (perUnit.get(u.unit) ?? 0) + Number(u.tickets));
    assert.deepEqual(Object.fromEntries([...perUnit].sort()), { day: 3, hour: 3, month: 3, year: 3 });
  });
  it('leaves out a column whose value is undefined, in an insert and in a completion, as the query builder does', async () => {
    const db = t.server.ctx.db.kysely;
    const now = Date.now();
    const row = {
      id: '01PREPAREDUNDEFINED0000000',
      tenant: 'acme', project: 'shop', user_name: 'u', target: 'pdf', status: null, next: 'no-such-step', complete: 0, run_after: now, priority: 0,
      // Leased far ahead to an owner no worker has, so only this test touches it.
      lease_owner: 'test-owner', lease_until: now + 3_600_000, attempt: 1, redeliveries: 0, messages: undefined, error_code: null, error_message: 'kept',
      params: '{}', input_type: 'xml', input_inline: Buffer.from('<data/>'), input_key: null, input_size: 7, foreign_key: undefined, processing_msecs: 0,
      processing_pages: 0, group_id: null, part_index: null, output_name: null, shipped: 0, created: now, updated: now, completed: null,
      keep_input_until: null, aggregate_id: null, max_parallel: null,
    };
    await tickets.insertTicketsCounted(db, t.server.ctx.db.dialect, [row as never], 'test-period');
    const stored = (await tickets.findTicket(db, row.id))!;
    assert.deepEqual([stored.messages, stored.foreign_key], ['[]', null], 'an undefined column takes its default');
    const patch = { status: 'no-such-step.failed', next: null, complete: 1, completed: now, error_code: '500', error_message: undefined };
    assert.equal((await tickets.completeStep(db, t.server.ctx.db.dialect, { id: row.id, attempt: 1, owner: 'test-owner' }, patch, [])).committed, true);
    const done = (await tickets.findTicket(db, row.id))!;
    assert.deepEqual([done.status, done.complete, done.error_code, done.error_message, done.lease_owner], ['no-such-step.failed', 1, '500', 'kept', null], 'an undefined value changes nothing');
    assert.equal((await tickets.completeStep(db, t.server.ctx.db.dialect, { id: row.id, attempt: 1, owner: 'test-owner' }, patch, [])).committed, false, 'the lease is gone');
    // A commit under a lost lease writes none of its parts: no artifact, no usage, no timeline end.
    const stale = { ticket: row.id, name: `${row.id}.stale.log`, kind: 'log', blob_key: `stale/${row.id}`, size: 1, content_type: 'text/plain', keep_until: null, keep_rule: null, created: now, data: Buffer.from('x') };
    const usage = [{ tenant: 'acme', project: 'stale-usage', unit: 'day', start: 0, tickets: 1, errors: 0, processing_msec: 0, processing_pages: 0, redeliveries: 0, total_msec: 0, download_requests: 0, download_bytes: 0, download_msec: 0, upload_requests: 0, upload_bytes: 0, upload_msec: 0, cache_hits: 0 }];
    await db.insertInto('step_events').values({ ticket: row.id, attempt: 1, step: 'no-such-step', started: now, ended: null, outcome: null, error_code: null }).execute();
    const end = { outcome: 'failed' as const, errorCode: '500', at: now };
    assert.equal((await tickets.completeStep(db, t.server.ctx.db.dialect, { id: row.id, attempt: 1, owner: 'test-owner' }, patch, [stale], usage, end)).committed, false);
    assert.deepEqual(await db.selectFrom('artifacts').select('name').where('ticket', '=', row.id).execute(), []);
    assert.deepEqual(await db.selectFrom('stats').select('tickets').where('project', '=', 'stale-usage').execute(), []);
    assert.deepEqual((await db.selectFrom('step_events').select(['ended', 'outcome']).where('ticket', '=', row.id).execute()).map((e) => [e.ended, e.outcome]), [[null, null]]);
  });
});
