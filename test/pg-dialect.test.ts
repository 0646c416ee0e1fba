import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { PressroomPostgresDialect } from '../src/store/pg-dialect.js';
import { testDatabaseUrl } from './helpers/stores.js';

const url = testDatabaseUrl();

/**
 * Reads the catalogue (as the migrator does at every start) while other schemas are created and
 * dropped beside it, as parallel test files and other deployments on one database do. Returns
 * how many reads failed.
 */
async function readWhileSchemasCome(dialect: (pool: pg.Pool) => PostgresDialect, reads: number): Promise<{ failed: number; first?: unknown }> {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  const db = new Kysely<unknown>({ dialect: dialect(pool) });
  const churn = new pg.Client({ connectionString: url });
  await churn.connect();
  let stop = false;
  const prefix = `t_churn_${randomBytes(3).toString('hex')}_`;
  const churning = (async () => {
    for (let i = 0; !stop; i++) {
      await churn.query(`CREATE SCHEMA "${prefix}${i}"`);
      await churn.query(`CREATE TABLE "${prefix}${i}".t (x int)`);
      await churn.query(`DROP SCHEMA "${prefix}${i}" CASCADE`);
    }
  })();
  let failed = 0;
  let first: unknown;
  try {
    for (let i = 0; i < reads; i++) {
      await db.introspection.getTables({ withInternalKyselyTables: true }).catch((err: unknown) => {
        failed++;
        first ??= err;
      });
    }
  } finally {
    stop = true;
    await churning;
    await churn.end();
    await db.destroy();
  }
  return { failed, first };
}

it('reads the PostgreSQL catalogue while other schemas are dropped beside it', { skip: url ? false : 'PRESSROOM_TEST_DATABASE_URL not set' }, async () => {
  const { failed, first } = await readWhileSchemasCome((pool) => new PressroomPostgresDialect({ pool }), 400);
  assert.equal(failed, 0, `catalogue reads failed: ${String(first)}`);
});
