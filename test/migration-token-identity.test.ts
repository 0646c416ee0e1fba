import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { Migrator, sql } from 'kysely';
import { migrate, openDb, type Db } from '../src/store/index.js';
import { migrationsFor } from '../src/store/migrations/index.js';
import { freshSettings } from './helpers/server.js';
import { describeEachStore } from './helpers/stores.js';

describeEachStore('migration 006-token-identity on existing rows', (kind) => {
  let db: Db;
  let schema: string;
  let cleanup: () => Promise<void>;
  before(async () => {
    const fresh = await freshSettings(kind);
    cleanup = fresh.cleanup;
    schema = fresh.settings.databaseSchema;
    db = openDb(fresh.settings);
    if (db.pgPool) await db.pgPool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  });
  after(async () => {
    await db.close();
    await cleanup();
  });

  it('gives every tenant and project that exists already an id of its own', async () => {
    const migrations = migrationsFor(db.dialect.kind);
    const migrator = new Migrator({
      db: db.kysely,
      provider: { getMigrations: async () => migrations },
      allowUnorderedMigrations: true,
      ...(db.pgPool ? { migrationTableSchema: schema } : {}),
    });
    const before = await migrator.migrateTo('006-auth-guards');
    assert.equal(before.error, undefined);
    for (const name of ['acme', 'beta']) await sql`insert into tenants (name, created, updated) values (${name}, 1, 1)`.execute(db.kysely);
    for (const [tenant, name] of [['acme', 'shop'], ['acme', 'web'], ['beta', 'shop']]) {
      await sql`insert into projects (tenant, name, created, updated) values (${tenant}, ${name}, 1, 1)`.execute(db.kysely);
    }
    // Every migration after 006-auth-guards runs, 006-token-identity first.
    const later = Object.keys(migrations).filter((name) => name > '006-auth-guards');
    assert.equal(later[0], '006-token-identity');
    assert.deepEqual(await migrate(db, schema), later);
    const ids = [
      ...(await db.kysely.selectFrom('tenants').select('uid').execute()),
      ...(await db.kysely.selectFrom('projects').select('uid').execute()),
    ].map((r) => r.uid);
    assert.equal(ids.length, 5);
    for (const id of ids) assert.match(id, /^[0-9a-f-]{36}$/);
    assert.equal(new Set(ids).size, 5, 'every row has its own id');
  });
});
