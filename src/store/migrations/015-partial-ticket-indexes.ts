import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Indexes of `tickets` that hold only the rows their queries ask for. Every entry costs every
 * ticket: SQLite writes each index page a commit touches to the WAL, and PostgreSQL adds an
 * entry to every index (a partial one only where its condition holds) on each update that is
 * not HOT, which the claim and the completion of a ticket are.
 * - `tickets_group` (group_id): no query reads it; a fanout's parts are found by their aggregate.
 * - `tickets_aggregate_open` (aggregate_id, complete): only fanout parts have an aggregate, and
 *   its one query asks for the open parts of a given one.
 * - `tickets_project_lease` (tenant, project, lease_until): only a running ticket holds a lease
 *   (a completion clears it), and its one query counts a project's leases that have not expired
 *   (maxParallelRenders).
 *
 * On the bench page (600 asynchronous sheets, SQLite, 2 cores, two alternated pairs) the service
 * wrote 344–353 KiB per ticket against 366–378 (WAL and checkpoints) in 128–133 write calls
 * against 139–144. On PostgreSQL its WAL and CPU per ticket did not change measurably.
 */
export const partialTicketIndexes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropIndex('tickets_group').ifExists().execute();
    await db.schema.dropIndex('tickets_aggregate_open').ifExists().execute();
    await db.schema
      .createIndex('tickets_aggregate_open')
      .on('tickets')
      .columns(['aggregate_id', 'complete'])
      .where(sql.ref('aggregate_id'), 'is not', null)
      .execute();
    await db.schema.dropIndex('tickets_project_lease').ifExists().execute();
    await db.schema
      .createIndex('tickets_project_lease')
      .on('tickets')
      .columns(['tenant', 'project', 'lease_until'])
      .where(sql.ref('lease_until'), 'is not', null)
      .execute();
  },
};
