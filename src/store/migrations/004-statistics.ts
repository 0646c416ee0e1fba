import type { CreateTableBuilder, Kysely, Migration } from 'kysely';

/** Usage counters per tenant, project and UTC interval; indexes for retention housekeeping. */
export const statistics: Migration = {
  async up(db: Kysely<unknown>) {
    let table: CreateTableBuilder<'stats', string> = db.schema
      .createTable('stats')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('project', 'text', (c) => c.notNull())
      .addColumn('unit', 'text', (c) => c.notNull())
      .addColumn('start', 'bigint', (c) => c.notNull());
    for (const name of [
      'tickets',
      'errors',
      'processing_msec',
      'processing_pages',
      'redeliveries',
      'total_msec',
      'download_requests',
      'download_bytes',
      'download_msec',
      'upload_requests',
      'upload_bytes',
      'upload_msec',
      'cache_hits',
    ]) {
      table = table.addColumn(name, 'bigint', (c) => c.notNull().defaultTo(0));
    }
    await table.addPrimaryKeyConstraint('stats_pk', ['tenant', 'project', 'unit', 'start']).execute();
    await db.schema.createIndex('stats_unit_start').on('stats').columns(['unit', 'start']).execute();

    // Housekeeping looks for expired inputs, shipped tickets and old complete tickets.
    await db.schema.createIndex('tickets_keep_input').on('tickets').column('keep_input_until').execute();
    await db.schema.createIndex('tickets_shipped').on('tickets').columns(['shipped', 'complete']).execute();
    await db.schema.createIndex('tickets_completed').on('tickets').columns(['complete', 'completed']).execute();
  },
};
