import { sql, type Kysely, type Migration } from 'kysely';

/**
 * PostgreSQL tries to compress every value above ~2 KB before it moves it out of line (TOAST).
 * The files kept in `artifacts.data` — PDFs, page images — are compressed already: inserting the
 * benchmark's 70 KB PDF took 1.6 ms with the attempt and 0.76 ms without, for the same table
 * size (400 inserts each, PostgreSQL 15). EXTERNAL keeps the out-of-line storage and skips the
 * attempt. SQLite has no such step: there the migration does nothing.
 */
export function artifactDataUncompressed(kind: 'sqlite' | 'postgres'): Migration {
  return {
    async up(db: Kysely<unknown>) {
      if (kind === 'postgres') await sql`ALTER TABLE artifacts ALTER COLUMN data SET STORAGE EXTERNAL`.execute(db);
    },
  };
}
