import type { Kysely, Migration } from 'kysely';

/** Fanout groups and aggregates, per-project parallel limits, fair priority and quotas. */
export const fanoutPriority: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('tickets').addColumn('aggregate_id', 'text').execute();
    await db.schema.alterTable('tickets').addColumn('max_parallel', 'integer').execute();
    await db.schema.createIndex('tickets_aggregate').on('tickets').column('aggregate_id').execute();
    await db.schema.createIndex('tickets_project_created').on('tickets').columns(['tenant', 'project', 'created']).execute();
    await db.schema.createIndex('tickets_project_lease').on('tickets').columns(['tenant', 'project', 'lease_until']).execute();
    await db.schema
      .createTable('quota_usage')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('project', 'text', (c) => c.notNull())
      .addColumn('period', 'text', (c) => c.notNull())
      .addColumn('tickets', 'bigint', (c) => c.notNull().defaultTo(0))
      .addPrimaryKeyConstraint('quota_usage_pk', ['tenant', 'project', 'period'])
      .execute();
  },
};
