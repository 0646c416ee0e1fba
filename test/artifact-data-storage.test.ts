import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { sql } from 'kysely';
import { migrate, openDb, type Db } from '../src/store/index.js';
import { freshSettings } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

// Files kept in artifact rows are compressed already (PDF, PNG): on PostgreSQL the column is
// stored out of line without a compression attempt (migration 013), and the bytes come back as
// they went in, on both engines.
describeEachStore('artifact bytes in their rows', (kind) => {
  let db: Db;
  let cleanup: () => Promise<void>;
  before(async () => {
    const fresh = await freshSettings(kind);
    cleanup = fresh.cleanup;
    db = openDb(fresh.settings);
    await migrate(db, fresh.settings.databaseSchema);
  });
  after(async () => {
    await db.close();
    await cleanup();
  });

  it('keeps a 100 KB file byte for byte, and PostgreSQL does not try to compress it', async () => {
    if (kind === 'postgres') {
      const { rows } = await sql<{ attstorage: string }>`select attstorage from pg_attribute where attrelid = 'artifacts'::regclass and attname = 'data'`.execute(db.kysely);
      assert.deepEqual(rows, [{ attstorage: 'e' }], 'EXTERNAL: out of line, uncompressed');
    }
    const bytes = Buffer.alloc(100_000);
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919 + (i >> 8)) & 255;
    await db.kysely
      .insertInto('artifacts')
      .values({ ticket: 'T1', name: 'T1.pdf', kind: 'output', blob_key: 'jobs/a/b/T1/a1.T1.pdf', size: bytes.length, content_type: 'application/pdf', keep_until: null, keep_rule: 'forever', created: 1, data: bytes })
      .execute();
    const row = await db.kysely.selectFrom('artifacts').select('data').where('name', '=', 'T1.pdf').executeTakeFirstOrThrow();
    assert.ok(row.data?.equals(bytes));
  });
});
