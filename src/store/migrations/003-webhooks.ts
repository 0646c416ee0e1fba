import type { Kysely, Migration } from 'kysely';

/** Webhook progress of a ticket: URLs already delivered per step and upload export parameters. */
export const webhooks: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('tickets').addColumn('webhook_state', 'text').execute();
  },
};
