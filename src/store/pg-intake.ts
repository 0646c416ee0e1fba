import { sql, type CompiledQuery, type Kysely } from 'kysely';
import { fieldSlots, Prepared, sqlList as list } from './prepared.js';
import type { Database } from './schema.js';
import type { TicketRow } from './tickets.js';

// PostgreSQL: a request's one ticket stored as one statement instead of a transaction of four
// or five round trips (BEGIN, the ticket, its attempt's start when handed to a worker, the
// quota count, COMMIT). Inserts with VALUES type every parameter from its column.

interface InsertValues extends Record<string, unknown> {
  ticket: TicketRow;
  period: string;
  started_at: number | undefined;
}

const insert = new Prepared<InsertValues, unknown>((db, v, key) => {
  const [columns, started] = key.split('|') as [string, string];
  const names = columns.split(',');
  // The timeline and quota parts read their columns even where the ticket leaves one to its default.
  const t = fieldSlots<Record<string, unknown>, InsertValues>(v, 'ticket', [...names, 'id', 'attempt', 'next', 'tenant', 'project']);
  const ctes = [sql`ticket as (insert into tickets (${list(names.map((c) => sql.ref(c)))}) values (${list(names.map((c) => sql`${t[c]}`))}))`];
  if (started === '1') ctes.push(sql`started as (insert into step_events (ticket, attempt, step, started) values (${t.id}, ${t.attempt}, ${t.next}, ${v.started_at}) on conflict (ticket, attempt) do nothing)`);
  ctes.push(sql`counted as (insert into quota_usage (tenant, project, period, tickets) values (${t.tenant}, ${t.project}, ${v.period}, 1) on conflict (tenant, project, period) do update set tickets = quota_usage.tickets + excluded.tickets)`);
  const statement = sql`with ${list(ctes)} select 1 as stored`;
  return { compile: (): CompiledQuery<unknown> => statement.compile(db) };
});

/**
 * Inserts one ticket, counts it against the quota period and, with `startedAt` for a row stored
 * already leased, records the start of its attempt: one statement, all or nothing.
 */
export async function insertTicketPostgres(db: Kysely<Database>, row: TicketRow, period: string, startedAt: number | undefined): Promise<void> {
  // As Kysely's own insert does, a column whose value is undefined is left to its default.
  const columns = (Object.keys(row) as (keyof TicketRow & string)[]).filter((c) => row[c] !== undefined);
  const values: InsertValues = { ticket: row, period, started_at: startedAt };
  const started = startedAt !== undefined && row.lease_owner !== null ? '1' : '0';
  await insert.execute(db, db, values, `${columns.join(',')}|${started}`);
}
