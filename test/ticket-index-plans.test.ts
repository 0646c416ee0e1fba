import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect, type CompiledQuery } from 'kysely';
import { migrate, openDb, retention, ticketHistory, tickets, type Database, type Db } from '../src/store/index.js';
import { freshSettings } from './helpers/server.js';

// The indexes of `tickets` keyed by `complete` are partial (migration 016): each holds only the
// rows its queries ask for, so a completion no longer moves an entry across every one of them.
// These are the plans SQLite makes for the queries as the store sends them: a partial index
// serves a query whose own condition implies the index's (the queries name `complete` as a
// literal, see the migration), and the planner, knowing nothing of the indexes' sizes, must
// still pick them over the other indexes of `tickets`.
describe('the queries of the partial ticket indexes use them (SQLite)', () => {
  let db: Db;
  let raw: SQLite.Database;
  let logged: Kysely<Database>;
  const sent: CompiledQuery[] = [];
  let cleanup: () => Promise<void>;
  before(async () => {
    const fresh = await freshSettings('sqlite');
    cleanup = fresh.cleanup;
    db = openDb(fresh.settings);
    await migrate(db, fresh.settings.databaseSchema);
    raw = new SQLite(join(fresh.settings.dataDir, 'pressroom.db'));
    logged = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }), log: (e) => void sent.push(e.query) });
  });
  after(async () => {
    await logged.destroy();
    await db.close();
    await cleanup();
  });

  /**
   * The plan of the one query `run` sends, step by step. The index's condition must be in the
   * statement as a literal: bound as a parameter, SQLite would prepare it again at every run.
   */
  async function planOf(run: (db: Kysely<Database>) => Promise<unknown>, literal: RegExp): Promise<string> {
    sent.length = 0;
    await run(logged);
    assert.equal(sent.length, 1, 'one query');
    const { sql, parameters } = sent[0]!;
    assert.match(sql, literal);
    const steps = raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...(parameters as unknown[])) as { detail: string }[];
    return steps.map((s) => s.detail).join(' | ');
  }

  it("reads a project's open tickets from tickets_project_open", async () => {
    assert.match(await planOf((k) => tickets.openTicketIds(k, 'acme', 'shop'), /"complete" = 0/), /USING (COVERING )?INDEX tickets_project_open /);
    assert.match(await planOf((k) => ticketHistory.listTickets(k, { tenant: 'acme', project: 'shop', status: 'open', limit: 50 }), /"complete" = 0/), /USING INDEX tickets_project_open /);
  });

  it('finds the files of shipped tickets through tickets_shipped', async () => {
    assert.match(await planOf((k) => retention.shippedFiles(k, 100), /"tickets"."shipped" = 1 and "tickets"."complete" = 1/), /SEARCH tickets USING INDEX tickets_shipped /);
  });

  it('finds finished tickets, oldest first, through tickets_completed', async () => {
    const plan = await planOf((k) => retention.finishedTickets(k, Date.now(), Date.now(), 100), /"complete" = 1/);
    assert.match(plan, /SEARCH tickets USING INDEX tickets_completed /);
    assert.doesNotMatch(plan, /TEMP B-TREE/, 'the index gives the order');
  });
});
