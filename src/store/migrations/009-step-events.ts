import { type Kysely, type Migration } from 'kysely';

/**
 * One row per step attempt (the ticket's timeline): written when a worker starts a step and
 * when it ends. Rows go with their ticket (foreign key, on delete cascade), so retention and
 * tenant deletion need no extra statement.
 */
export const stepEvents: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('step_events')
      .addColumn('ticket', 'text', (c) => c.notNull().references('tickets.id').onDelete('cascade'))
      .addColumn('attempt', 'integer', (c) => c.notNull())
      .addColumn('step', 'text', (c) => c.notNull())
      .addColumn('started', 'bigint', (c) => c.notNull())
      .addColumn('ended', 'bigint')
      .addColumn('outcome', 'text')
      .addColumn('error_code', 'text')
      .addPrimaryKeyConstraint('step_events_pk', ['ticket', 'attempt'])
      .execute();
  },
};
