import type { Kysely, Migration } from 'kysely';

/** Failed token requests per user name and per client address, counted in fixed windows. */
export const authGuards: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('auth_failures')
      .addColumn('subject', 'text', (c) => c.primaryKey())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('expires', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('auth_failures_expires').on('auth_failures').column('expires').execute();
  },
};
