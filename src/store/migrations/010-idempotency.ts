import type { Kysely, Migration } from 'kysely';

/**
 * Idempotency keys of render requests (Idempotency-Key header): one row per tenant, project and
 * key, pending while its request runs intake, then done with the tickets it created. Housekeeping
 * deletes rows after 24 h (the index on `created`).
 */
export const idempotency: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('idempotency_keys')
      .addColumn('tenant', 'text', (c) => c.notNull())
      .addColumn('project', 'text', (c) => c.notNull())
      .addColumn('key', 'text', (c) => c.notNull())
      .addColumn('request_hash', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('result', 'text')
      .addColumn('created', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('idempotency_keys_pk', ['tenant', 'project', 'key'])
      .execute();
    await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created').execute();
  },
};
