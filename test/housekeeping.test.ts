import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import { startServer, type Server } from '../src/server.js';
import { tickets } from '../src/store/index.js';
import { housekeepingTick, runHousekeeping } from '../src/tickets/retention/index.js';
import { testClock } from './helpers/clock.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

const grid = `<data><item id="A-1"><title>Espresso machine</title></item></data>`;
const DAY = 86_400_000;

describeEachStore('housekeeping across processes', (kind) => {
  let t: TestServer;
  let second: Server;
  let ids: string[];
  const clock = testClock();

  before(async () => {
    // Every file a blob (PRESSROOM_INLINE_FILE_MAX_BYTES=0): the race is over deleting blobs and their folders.
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50, housekeepingMs: 0, inlineFileMaxBytes: 0 }, { now: clock.now });
    // A second process on the same database and blob store: API only, it still does housekeeping.
    second = await startServer({ ...t.settings, role: 'api' }, { now: clock.now });
    const p = await setupProject(t, 'acme', 'race');
    await putFile(t, p.admin, 'tenants/acme/projects/race/renderpdf/config.ion', '{ keepOutputUntil: expired, keepOutputForSeconds: 600, keepLogForSeconds: 600 }');
    ids = [];
    for (let i = 0; i < 5; i++) ids.push(...(await submit(t, p.jobs, grid, { project: 'race' })));
    for (const id of ids) await waitComplete(t, p.jobs, id, 30_000, 'acme', 'race');
  });
  after(async () => {
    await second.stop();
    await t.close();
  });

  it('lets exactly one process win each round, without a leader', async () => {
    const a = t.server.ctx;
    const b = second.ctx;
    const interval = 60_000;
    const first = await Promise.all([housekeepingTick(a, interval), housekeepingTick(b, interval)]);
    assert.equal(first.filter((r) => r !== null).length, 1, 'one winner');
    const again = await Promise.all([housekeepingTick(a, interval), housekeepingTick(b, interval)]);
    assert.deepEqual(again, [null, null], 'not due yet');
    clock.advance(interval);
    const later = await Promise.all([housekeepingTick(b, interval), housekeepingTick(a, interval)]);
    assert.equal(later.filter((r) => r !== null).length, 1, 'one winner of the next round');
  });

  it('deletes every expired file and ticket exactly once when two processes run at once', async () => {
    const files = (await Promise.all(ids.map((id) => tickets.listArtifacts(t.server.ctx.db.kysely, id)))).flat();
    assert.equal(files.length, 15, 'pdf, content and log of five tickets');
    clock.advance(601_000);
    const now = clock.now();
    const runs = await Promise.all([runHousekeeping(t.server.ctx, { now, batch: 2 }), runHousekeeping(second.ctx, { now, batch: 2 })]);
    assert.equal(runs[0].files + runs[1].files, 15, JSON.stringify(runs));
    for (const f of files) assert.equal(await t.server.ctx.blobs.size(f.blob_key), undefined, f.name);

    clock.advance(8 * DAY);
    const later = clock.now();
    const rows = await Promise.all([runHousekeeping(second.ctx, { now: later, batch: 1 }), runHousekeeping(t.server.ctx, { now: later, batch: 1 })]);
    assert.equal(rows[0].tickets + rows[1].tickets, 5, JSON.stringify(rows));
    assert.equal(rows[0].inputs + rows[1].inputs, 5, 'each inline input dropped once');
    for (const id of ids) assert.equal(await tickets.findTicket(t.server.ctx.db.kysely, id), undefined);
    assert.deepEqual(await t.server.ctx.blobs.list('jobs/acme/race/'), []);
    assert.deepEqual(readdirSync(join(t.settings.dataDir, 'blobs', 'jobs', 'acme', 'race')), [], 'no folder left behind');

    // Idempotent: nothing left to do.
    assert.deepEqual(await runHousekeeping(t.server.ctx, { now: later }), { files: 0, inputs: 0, tickets: 0, deadAttempts: 0, idempotencyKeys: 0, temp: 0 });
  });

  it('sweeps partial blob writes a crashed process left, but not fresh ones', async () => {
    const dir = join(t.settings.dataDir, 'blobs', 'repo');
    await mkdir(dir, { recursive: true });
    const stale = join(dir, 'abc.0123456789ab.tmp');
    const fresh = join(dir, 'def.0123456789ab.tmp');
    await writeFile(stale, 'partial');
    await writeFile(fresh, 'partial');
    const old = new Date(Date.now() - 2 * DAY);
    await utimes(stale, old, old);
    const r = await runHousekeeping(second.ctx, { now: clock.now(), temp: true });
    assert.equal(r.temp, 1);
    assert.ok(!existsSync(stale));
    assert.ok(existsSync(fresh));
  });

  it('runs rounds from a timer in every process', async () => {
    const timed = await startServer({ ...t.settings, role: 'api', housekeepingMs: 100 }, { now: clock.now });
    try {
      const p = await setupProject(t, 'acme', 'timer');
      await putFile(t, p.admin, 'tenants/acme/projects/timer/renderpdf/config.ion', '{ keepOutputUntil: expired, keepOutputForSeconds: 1, keepLog: never }');
      const [id] = await submit(t, p.jobs, grid, { project: 'timer' });
      await waitComplete(t, p.jobs, id!, 30_000, 'acme', 'timer');
      clock.advance(DAY);
      // Wait for the timer (real time), not for the expiry: that is the injected clock's job.
      for (let i = 0; i < 100 && (await tickets.listArtifacts(t.server.ctx.db.kysely, id!)).length > 0; i++) await new Promise((r) => setTimeout(r, 50));
      assert.deepEqual(await tickets.listArtifacts(t.server.ctx.db.kysely, id!), []);
    } finally {
      await timed.stop();
    }
  });
});
