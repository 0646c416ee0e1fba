import assert from 'node:assert/strict';
import { renameSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { sql } from 'kysely';
import { openDb, type Db } from '../src/store/index.js';
import { IdleCheckpoints } from '../src/store/wal-checkpoints.js';
import { until } from './helpers/chaos.js';
import { pdfText } from './helpers/pdf.js';
import { setupProject } from './helpers/project.js';
import { freshSettings, startTestServer, type TestServer } from './helpers/server.js';

/** In WAL mode only a checkpoint writes the database file itself: its size shows one ran. */
const dbFileBytes = (dataDir: string) => statSync(join(dataDir, 'pressroom.db')).size;

describe('WAL checkpoints while a render runs: the scheduling', () => {
  it('runs after the current turn, one at a time, at most once per interval, on the clock it is given', async () => {
    const ran: number[] = [];
    let finish: () => void = () => {};
    const checkpoints = new IdleCheckpoints(
      () => new Promise<void>((resolve) => (ran.push(ran.length), (finish = resolve))),
      250,
      (err) => assert.fail(String(err)),
    );
    assert.equal(checkpoints.soon(1000), true);
    assert.equal(ran.length, 0, 'not inside the caller’s turn: the job just sent goes first');
    await nextTurn();
    assert.equal(ran.length, 1);
    assert.equal(checkpoints.soon(2000), false, 'not while one runs');
    finish();
    await nextTurn();
    assert.equal(checkpoints.soon(1249), false, 'not within the interval of the last one asked for');
    assert.equal(checkpoints.soon(1250), true);
    await nextTurn();
    assert.equal(ran.length, 2);
  });

  it('reports a failed checkpoint and still runs the next one', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const checkpoints = new IdleCheckpoints(
      () => {
        calls++;
        // The first fails at once, as a call on a closed database does, not in a promise.
        if (calls === 1) throw new Error('disk I/O error');
        return Promise.resolve();
      },
      250,
      (err) => errors.push(err),
    );
    checkpoints.soon(0);
    await until('the failure to be reported', async () => errors.length === 1, 30_000);
    assert.match(String(errors[0]), /disk I\/O error/);
    await nextTurn();
    assert.equal(checkpoints.soon(250), true);
    await until('the second checkpoint', async () => calls === 2, 30_000);
  });
});

describe('WAL checkpoints while a render runs: SQLite', () => {
  let db: Db;
  let dataDir: string;
  let cleanup: () => Promise<void>;
  before(async () => {
    const fresh = await freshSettings('sqlite');
    ({ cleanup } = fresh);
    dataDir = fresh.settings.dataDir;
    db = openDb(fresh.settings);
  });
  after(async () => {
    await db.close();
    await cleanup();
  });

  it('moves writes that are still in the WAL into the database when asked', async () => {
    await sql`create table scratch (x blob)`.execute(db.kysely);
    // 100 rows of 16 KiB: about 400 pages of 4 KiB, below the automatic checkpoint's 1000.
    for (let i = 0; i < 10; i++) {
      await sql`insert into scratch (x) select randomblob(16384) from (select 1 union all select 2 union all select 3 union all select 4 union all select 5 union all select 6 union all select 7 union all select 8 union all select 9 union all select 10)`.execute(db.kysely);
    }
    const before = dbFileBytes(dataDir);
    assert.ok(before < 512 * 1024, `the writes are still in the WAL (database file ${before} bytes)`);
    db.checkpointSoon(Date.now());
    await until('the checkpoint to write the database file', async () => dbFileBytes(dataDir) > 1536 * 1024, 30_000);
    const rows = await sql<{ n: number }>`select count(*) as n from scratch`.execute(db.kysely);
    assert.equal(rows.rows[0]!.n, 100);
  });
});

describe('WAL checkpoints while a render runs: the checkpoint thread', () => {
  it('reports a checkpoint its thread could not run, and the database goes on working', async () => {
    const fresh = await freshSettings('sqlite');
    const errors: unknown[] = [];
    const db = openDb(fresh.settings, { onCheckpointError: (err) => errors.push(err) });
    try {
      await sql`create table scratch (x integer)`.execute(db.kysely);
      // The thread opens the file by name when first asked: gone from the folder, it cannot.
      const file = join(fresh.settings.dataDir, 'pressroom.db');
      renameSync(file, `${file}.moved`);
      db.checkpointSoon(Date.now());
      await until('the failure to be reported', async () => errors.length === 1, 30_000);
      assert.match(String(errors[0]), /the checkpoint thread failed: .*(unable to open|no such file)/i);
      // The main connection still has its file open: writes and reads go on.
      await sql`insert into scratch (x) values (1)`.execute(db.kysely);
      assert.equal((await sql<{ n: number }>`select count(*) as n from scratch`.execute(db.kysely)).rows[0]!.n, 1);
      renameSync(`${file}.moved`, file);
    } finally {
      await db.close();
      await fresh.cleanup();
    }
  });
});

describe('WAL checkpoints while a render runs: a synchronous render', () => {
  let t: TestServer;
  let jobs: string;
  before(async () => {
    t = await startTestServer('sqlite');
    jobs = (await setupProject(t)).jobs;
  });
  after(() => t.close());

  it('checkpoints the WAL while the PDF renders, and answers with the PDF', async () => {
    const before = dbFileBytes(t.settings.dataDir);
    const res = await t.fetch('/rest/tenants/acme/projects/shop/renderpdf?timeToWait=120000', {
      method: 'POST',
      token: jobs,
      body: '<data><item><title>Checkpointed sheet</title></item></data>',
      headers: { 'content-type': 'application/xml', accept: 'application/pdf' },
    });
    assert.equal(res.status, 200, res.status === 200 ? '' : await res.text());
    assert.match((await pdfText(Buffer.from(await res.arrayBuffer()))).join(''), /Checkpointed sheet/);
    // Start-up and the project's setup stayed in the WAL (below the automatic threshold);
    // the render's checkpoint writes them, and the new ticket, into the database file.
    await until('the database file to grow', async () => dbFileBytes(t.settings.dataDir) > before, 30_000);
  });
});
