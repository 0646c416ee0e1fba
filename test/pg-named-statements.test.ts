import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql, type Kysely } from 'kysely';
import { Prepared } from '../src/store/prepared.js';
import { migrate, openDb, type Db } from '../src/store/index.js';
import type { Database } from '../src/store/schema.js';
import { freshSettings } from './helpers/server.js';
import { testDatabaseUrl } from './helpers/stores.js';

// PostgreSQL only: the statements every ticket runs go to the server as named prepared
// statements (src/store/pg-statements.ts), so each connection parses them once.
const readTicket = new Prepared<{ id: string }, Record<string, unknown>>((db, v) => db.selectFrom('tickets').selectAll().where('id', '=', v.id));

/** The names and texts of the statements prepared on the connection `conn` runs on. */
async function preparedOn(conn: Kysely<Database>): Promise<{ name: string; statement: string }[]> {
  const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(conn);
  return rows;
}

async function openFresh(named: boolean): Promise<{ db: Db; cleanup: () => Promise<void> }> {
  const fresh = await freshSettings('postgres', { databaseNamedStatements: named });
  const db = openDb(fresh.settings);
  await migrate(db, fresh.settings.databaseSchema);
  return { db, cleanup: async () => (await db.close(), await fresh.cleanup()) };
}

if (!testDatabaseUrl()) {
  it('named statements on PostgreSQL', { skip: 'PRESSROOM_TEST_DATABASE_URL not set' }, () => {});
} else {
  describe('named statements on PostgreSQL', () => {
    let named: { db: Db; cleanup: () => Promise<void> };
    let unnamed: { db: Db; cleanup: () => Promise<void> };
    before(async () => {
      named = await openFresh(true);
      unnamed = await openFresh(false);
    });
    after(async () => {
      await named?.cleanup();
      await unnamed?.cleanup();
    });

    it('keeps a Prepared statement parsed on its connection, and other statements not', async () => {
      const db = named.db.kysely;
      await db.connection().execute(async (conn) => {
        await readTicket.execute(db, conn, { id: 'none' });
        await readTicket.execute(db, conn, { id: 'still-none' });
        await conn.selectFrom('meta').selectAll().where('key', '=', 'ad-hoc').execute();
        const prepared = await preparedOn(conn);
        const ours = prepared.filter((p) => p.name.startsWith('pressroom_'));
        assert.equal(ours.length, 1, JSON.stringify(prepared));
        assert.match(ours[0]!.statement, /from "tickets" where "id" = \$1/);
        assert.ok(!prepared.some((p) => p.statement.includes('"meta"')), 'an ad-hoc statement is sent unnamed');
      });
    });

    it('sends every statement unnamed when PRESSROOM_DATABASE_NAMED_STATEMENTS is false', async () => {
      const db = unnamed.db.kysely;
      await db.connection().execute(async (conn) => {
        await readTicket.execute(db, conn, { id: 'none' });
        assert.deepEqual(await preparedOn(conn), []);
      });
    });

    it('runs a kept statement again after another process changed its table, outside and inside a transaction', async () => {
      const db = named.db.kysely;
      const other = unnamed.db.kysely;
      const schema = named.db.pgConfig!.options!.replace('-c search_path=', '');
      await db.connection().execute(async (conn) => {
        await readTicket.execute(db, conn, { id: 'none' });
        // Another deployment's migration adds a column: the kept plan's result type is stale.
        await sql`alter table ${sql.id(schema, 'tickets')} add column extra_one integer`.execute(other);
        await db.insertInto('tickets').values(ticketRow('T-AFTER-ONE')).execute();
        const { rows } = await readTicket.execute(db, conn, { id: 'T-AFTER-ONE' });
        assert.equal(rows.length, 1);
        assert.ok('extra_one' in rows[0]!, `the row has the new column: ${Object.keys(rows[0]!).join(', ')}`);

        // Inside a transaction the failed statement cannot run again (the transaction is
        // aborted): that one transaction fails, and the next one runs under a new name.
        await sql`alter table ${sql.id(schema, 'tickets')} add column extra_two integer`.execute(other);
        const first = await conn
          .transaction()
          .execute((trx) => readTicket.execute(db, trx, { id: 'T-AFTER-ONE' }))
          .then(
            () => 'ran',
            (err: unknown) => String((err as Error).message),
          );
        assert.ok(first === 'ran' || /cached plan must not change result type/.test(first), first);
        const again = await conn.transaction().execute((trx) => readTicket.execute(db, trx, { id: 'T-AFTER-ONE' }));
        assert.ok('extra_two' in again.rows[0]!, `the row has the second new column: ${Object.keys(again.rows[0]!).join(', ')}`);
      });
    });
  });
}

/** A complete, minimal ticket row (the columns without defaults). */
function ticketRow(id: string): never {
  return {
    id,
    tenant: 'acme',
    project: 'shop',
    user_name: 'u',
    target: 'pdf',
    status: 'renderpdf.succeeded',
    next: null,
    complete: 1,
    run_after: 0,
    priority: 0,
    params: '{}',
    input_type: 'xml',
    created: 0,
    updated: 0,
  } as never;
}
