import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { GroupedTicketInserts, type Database, type TicketRow } from '../src/store/index.js';
import { setupProject, submit } from './helpers/project.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';
import { finishedTicketRow } from './helpers/ticket-rows.js';

// Tickets of requests ready at the same moment are committed together on SQLite
// (src/store/grouped-inserts.ts). What a client sees must not change: every request's tickets
// stored and counted once, a failing request failing alone.
describeEachStore('tickets of concurrent requests stored together', (kind) => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(kind, { renderThreads: 1, pollMs: 50 });
    await setupProject(t, 'acme', 'grouped');
  });
  after(() => t.close());

  const period = '2099-01';
  const quota = async () =>
    (await t.server.ctx.db.kysely.selectFrom('quota_usage').select('tickets').where('project', '=', 'grouped').where('period', '=', period).executeTakeFirst())?.tickets ?? 0;
  const row = (id: string) => finishedTicketRow(id, 'grouped', Date.now()) as unknown as TicketRow;
  const stored = async (ids: string[]) => (await t.server.ctx.db.kysely.selectFrom('tickets').select('id').where('id', 'in', ids).execute()).map((r) => r.id).sort();

  it('answers 16 concurrent submissions with 202 each, every ticket stored once with its own input', async () => {
    const jobs = await t.token('acme', 'grouped', 'jobs');
    const ids = await Promise.all(Array.from({ length: 16 }, (_, i) => submit(t, jobs, `<data><item><title>Item ${i}</title></item></data>`, { project: 'grouped' })));
    const all = ids.flat();
    assert.equal(new Set(all).size, 16);
    assert.deepEqual(await stored(all), [...all].sort());
    const inputs = await t.server.ctx.db.kysely.selectFrom('tickets').select(['id', 'input_inline']).where('id', 'in', all).execute();
    for (const [i, id] of ids.entries()) {
      const input = inputs.find((r) => r.id === id[0])!.input_inline;
      assert.match(Buffer.from(input!).toString(), new RegExp(`Item ${i}<`), `ticket ${id[0]} holds request ${i}'s body`);
    }
  });

  it('fails only the request whose ticket cannot be stored, and leaves the stored ticket it collided with alone', async () => {
    const inserts = t.server.ctx.ticketInserts;
    const existing = row('0GROUPEXISTING000000000000');
    await inserts.insert([existing], period);
    const before = await quota();
    // Started in one turn of the event loop: on SQLite they form one group.
    const ids = ['0GROUPA', '0GROUPB', '0GROUPC', '0GROUPD'].map((p) => p.padEnd(26, '0'));
    const outcomes = await Promise.allSettled([...ids.slice(0, 2).map((id) => inserts.insert([row(id)], period)), inserts.insert([{ ...existing, status: 'overwritten?' }], period), ...ids.slice(2).map((id) => inserts.insert([row(id)], period))]);

    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    assert.match(String((outcomes[2] as PromiseRejectedResult).reason), /UNIQUE|unique|duplicate/);
    assert.deepEqual(await stored(ids), [...ids].sort());
    assert.equal(await quota(), before + 4, 'the four stored tickets are counted, the refused one is not');
    const kept = await t.server.ctx.db.kysely.selectFrom('tickets').select('status').where('id', '=', existing.id).executeTakeFirstOrThrow();
    assert.equal(kept.status, existing.status);
  });

  it('commits the tickets of requests started together in one transaction (SQLite)', { skip: kind === 'postgres' ? 'PostgreSQL commits concurrent requests side by side; not grouped' : false }, async () => {
    // A second connection to the same database file, which logs the statements it runs.
    const begun: string[] = [];
    const sqlite = new SQLite(join(t.server.ctx.settings.dataDir, 'pressroom.db'));
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log: (e) => void begun.push(e.query.sql) });
    try {
      const inserts = new GroupedTicketInserts(kysely, t.server.ctx.db.dialect);
      const ids = Array.from({ length: 8 }, (_, i) => `0GROUPTOGETHER${i}`.padEnd(26, '0'));
      await Promise.all(ids.map((id) => inserts.insert([row(id)], period)));
      assert.deepEqual(await stored(ids), ids);
      assert.equal(begun.filter((q) => /^begin/i.test(q)).length, 1, `statements run: ${begun.join(' | ')}`);
      await inserts.insert([row('0GROUPALONE'.padEnd(26, '0'))], period);
      assert.equal(begun.filter((q) => /^begin/i.test(q)).length, 2, 'a request alone is committed alone');
    } finally {
      await kysely.destroy();
    }
  });

  it('gives every request of a group the error when the database refuses the group, without trying each again (SQLite)', { skip: kind === 'postgres' ? 'PostgreSQL commits concurrent requests side by side; not grouped' : false }, async () => {
    const file = join(t.server.ctx.settings.dataDir, 'pressroom.db');
    const begun: string[] = [];
    const sqlite = new SQLite(file);
    sqlite.pragma('busy_timeout = 0');
    const kysely = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), log: (e) => void begun.push(e.query.sql) });
    // Another connection holds the write lock: the group's first insert is refused with SQLITE_BUSY.
    const holder = new SQLite(file);
    holder.exec('BEGIN IMMEDIATE');
    try {
      const inserts = new GroupedTicketInserts(kysely, t.server.ctx.db.dialect);
      const ids = Array.from({ length: 3 }, (_, i) => `0GROUPBUSY${i}`.padEnd(26, '0'));
      const outcomes = await Promise.allSettled(ids.map((id) => inserts.insert([row(id)], period)));
      assert.deepEqual(outcomes.map((o) => o.status), ['rejected', 'rejected', 'rejected']);
      for (const o of outcomes) assert.equal(((o as PromiseRejectedResult).reason as { code?: string }).code, 'SQLITE_BUSY');
      assert.equal(begun.filter((q) => /^begin/i.test(q)).length, 1, `tried once, not once more per request: ${begun.join(' | ')}`);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
      await kysely.destroy();
    }
    assert.deepEqual(await stored(['0GROUPBUSY0'.padEnd(26, '0')]), [], 'nothing of the refused group was stored');
  });
});
