import type { Kysely, Migration } from 'kysely';

/**
 * A step's log and content file, when small, are kept in their artifact row instead of a blob
 * of their own: each blob is a file created (an inode, the costly part of a write) or an
 * object PUT, two per ticket that the row's commit now carries.
 */
export const artifactData: Migration = {
  async up(db: Kysely<unknown>) {
    // SQLite keeps a Buffer as BLOB whatever the declared type.
    await db.schema.alterTable('artifacts').addColumn('data', 'bytea').execute();
  },
};
