import type { Kysely, Migration } from 'kysely';

/**
 * Two indexes of `tickets` that no query needs any more, dropped because every index costs every
 * ticket: SQLite writes a page of each one it touches to the WAL at every commit (three commits
 * a ticket), and PostgreSQL adds an entry to every index of the table on each update that
 * changes an indexed column, which a ticket's every step does.
 * - `tickets_due` (next, priority, run_after): the claim walks `tickets_claim_order` (011), and
 *   the queue depth of /metrics scans that partial index (its rows are exactly those with a next step);
 * - `tickets_aggregate` (aggregate_id): a prefix of `tickets_aggregate_open` (011).
 */
export const dropRedundantIndexes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropIndex('tickets_due').ifExists().execute();
    await db.schema.dropIndex('tickets_aggregate').ifExists().execute();
  },
};
