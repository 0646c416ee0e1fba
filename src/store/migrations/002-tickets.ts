import type { Kysely, Migration } from 'kysely';

/** Tickets (the job and the queue in one row) and their stored files. */
export const tickets: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('tickets')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('project', 'text', (c) => c.notNull())
      .addColumn('user_name', 'text', (c) => c.notNull())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('status', 'text')
      .addColumn('next', 'text')
      .addColumn('complete', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('run_after', 'bigint', (c) => c.notNull())
      .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_owner', 'text')
      .addColumn('lease_until', 'bigint')
      .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('redeliveries', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('messages', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('error_code', 'text')
      .addColumn('error_message', 'text')
      .addColumn('params', 'text', (c) => c.notNull())
      .addColumn('input_type', 'text', (c) => c.notNull())
      .addColumn('input_inline', 'bytea') // SQLite keeps a Buffer as BLOB whatever the declared type
      .addColumn('input_key', 'text')
      .addColumn('input_size', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('foreign_key', 'text')
      .addColumn('processing_msecs', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('processing_pages', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('group_id', 'text')
      .addColumn('part_index', 'integer')
      .addColumn('output_name', 'text')
      .addColumn('shipped', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addColumn('updated', 'bigint', (c) => c.notNull())
      .addColumn('completed', 'bigint')
      .addColumn('keep_input_until', 'bigint')
      .execute();
    await db.schema.createIndex('tickets_due').on('tickets').columns(['next', 'priority', 'run_after']).execute();
    await db.schema.createIndex('tickets_project_open').on('tickets').columns(['tenant', 'project', 'complete']).execute();
    await db.schema.createIndex('tickets_group').on('tickets').column('group_id').execute();

    await db.schema
      .createTable('artifacts')
      .addColumn('ticket', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('blob_key', 'text', (c) => c.notNull())
      .addColumn('size', 'bigint', (c) => c.notNull())
      .addColumn('content_type', 'text', (c) => c.notNull())
      .addColumn('keep_until', 'bigint')
      .addColumn('keep_rule', 'text')
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('artifacts_pk', ['ticket', 'name'])
      .execute();
    await db.schema.createIndex('artifacts_keep_until').on('artifacts').column('keep_until').execute();
  },
};
