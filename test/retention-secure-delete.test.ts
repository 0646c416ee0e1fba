import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { tickets } from '../src/store/index.js';
import { runHousekeeping } from '../src/tickets/retention/index.js';
import { testClock } from './helpers/clock.js';
import { putFile, setupProject, submit, waitComplete } from './helpers/project.js';
import { startServer } from '../src/server.js';
import { freshSettings, startTestServer, type TestServer } from './helpers/server.js';

const DAY = 86_400_000;

// The database files themselves are the subject here, so this runs on SQLite only; what an
// operator does on PostgreSQL (VACUUM, backups) is in docs/retention.md.
describe('deleted data leaves the SQLite files [sqlite]', () => {
  let t: TestServer;
  const clock = testClock();
  const files = () => ['pressroom.db', 'pressroom.db-wal'].map((name) => join(t.settings.dataDir, name));
  /** The database files (of those that exist) holding `marker` anywhere in their bytes. */
  const holding = (marker: string) => files().filter((f) => existsSync(f) && readFileSync(f).includes(marker));
  /** Waits up to 5 s (the bound) for no database file to hold `marker`. */
  const gone = async (marker: string) => {
    const deadline = Date.now() + 5000;
    while (holding(marker).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(holding(marker), [], `${marker} is still in the database files`);
  };

  before(async () => {
    t = await startTestServer('sqlite', { renderThreads: 1, pollMs: 50, housekeepingMs: 0 }, { now: clock.now });
  });
  after(() => t.close());

  it('removes an expired inline input and a deleted ticket row from pressroom.db and its WAL', async () => {
    const p = await setupProject(t, 'acme', 'secret');
    await putFile(t, p.admin, 'tenants/acme/projects/secret/restapi/config.ion', '{ keepInputForSeconds: 60 }');
    await putFile(t, p.admin, 'tenants/acme/projects/secret/renderpdf/config.ion', '{ keepOutputUntil: expired, keepOutputForSeconds: 60, keepLog: never }');
    const inputMarker = `INPUT${randomBytes(12).toString('hex')}`;
    const keyMarker = `FKEY${randomBytes(12).toString('hex')}`;
    // About 30 KB: inline (below inputBufferSize) and spread over overflow pages.
    const items = Array.from({ length: 300 }, (_, i) => `<item id="${i}"><title>${inputMarker} ${i}</title><price>${i}</price></item>`).join('');
    const [id] = await submit(t, p.jobs, `<data>${items}</data>`, { project: 'secret', query: `foreignKey=${keyMarker}` });
    assert.equal((await waitComplete(t, p.jobs, id!, 60_000, 'acme', 'secret')).status, 'renderpdf.succeeded');
    assert.ok((await tickets.findTicket(t.server.ctx.db.kysely, id!))!.input_inline, 'the input is held inline');
    assert.notDeepEqual(holding(inputMarker), [], 'the test sees the input in the database files');
    assert.notDeepEqual(holding(keyMarker), [], 'the test sees the foreign key in the database files');

    clock.advance(120_000);
    const inputs = await runHousekeeping(t.server.ctx, { now: clock.now() });
    assert.ok(inputs.inputs >= 1);
    await gone(inputMarker);
    assert.ok(await tickets.findTicket(t.server.ctx.db.kysely, id!), 'the ticket row is still there');

    clock.advance(8 * DAY);
    const rows = await runHousekeeping(t.server.ctx, { now: clock.now() });
    assert.ok(rows.tickets >= 1);
    assert.equal(await tickets.findTicket(t.server.ctx.db.kysely, id!), undefined);
    await gone(keyMarker);
  });
});

describe('an existing SQLite database [sqlite]', () => {
  it('is converted to incremental auto-vacuum once, keeping its data', async () => {
    const fresh = await freshSettings('sqlite');
    try {
      // A database as earlier versions made it: WAL, no auto-vacuum, data in it.
      mkdirSync(fresh.settings.dataDir, { recursive: true });
      const old = new SQLite(join(fresh.settings.dataDir, 'pressroom.db'));
      old.pragma('journal_mode = WAL');
      old.exec("CREATE TABLE keepsake (v TEXT); INSERT INTO keepsake VALUES ('still here')");
      assert.equal(old.pragma('auto_vacuum', { simple: true }), 0);
      old.close();

      const server = await startServer(fresh.settings);
      await server.stop();
      const after = new SQLite(join(fresh.settings.dataDir, 'pressroom.db'), { readonly: true });
      try {
        assert.equal(after.pragma('auto_vacuum', { simple: true }), 2, 'incremental');
        assert.deepEqual(after.prepare('SELECT v FROM keepsake').all(), [{ v: 'still here' }]);
      } finally {
        after.close();
      }
    } finally {
      await fresh.cleanup();
    }
  });
});
