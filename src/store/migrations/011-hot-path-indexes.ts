import { sql, type Kysely, type Migration } from 'kysely';

/**
 * Indexes the per-ticket queries of a busy queue need, each measured on a 1000-part fanout
 * (SQLite), where every one of them read all 1000 rows each time:
 * - the claim walks due tickets in its own order (priority, run_after, id) and stops at the
 *   first it may take, instead of sorting every due ticket (0.6 ms a claim);
 * - a finished part counts its aggregate's open parts, not all of them;
 * - an artifact is found by its served name (the main output of a ticket, a download).
 */
export const hotPathIndexes: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createIndex('tickets_claim_order')
      .on('tickets')
      .columns(['priority', 'run_after', 'id'])
      .where(sql.ref('next'), 'is not', null)
      .execute();
    await db.schema.createIndex('tickets_aggregate_open').on('tickets').columns(['aggregate_id', 'complete']).execute();
    await db.schema.createIndex('artifacts_name').on('artifacts').column('name').execute();
  },
};
