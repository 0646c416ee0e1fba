import { PostgresDialect, type DatabaseIntrospector, type DatabaseMetadataOptions, type Kysely } from 'kysely';

/** How often a catalogue read is tried when a schema or table vanished under it. */
const ATTEMPTS = 10;
/** invalid_schema_name, undefined_table: what PostgreSQL answers for a name that went away mid-read. */
const VANISHED = new Set(['3F000', '42P01']);

/**
 * Kysely's PostgreSQL dialect, whose catalogue reads survive another schema being dropped
 * meanwhile. The migrator asks whether its bookkeeping table exists by reading the tables of
 * every schema of the database, calling has_schema_privilege() on each schema name it saw;
 * when another deployment (or another test) drops its schema between the two, PostgreSQL
 * answers "schema … does not exist" (3F000) and the migration fails; a table dropped with it
 * between the two gives "relation … does not exist" (42P01). Read again, the catalogue no
 * longer lists them.
 */
export class PressroomPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    const inner = super.createIntrospector(db);
    return {
      getSchemas: () => retried(() => inner.getSchemas()),
      getTables: (options?: DatabaseMetadataOptions) => retried(() => inner.getTables(options)),
      getMetadata: (options?: DatabaseMetadataOptions) => retried(() => inner.getMetadata(options)),
    };
  }
}

async function retried<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (err) {
      if (!VANISHED.has((err as { code?: string }).code ?? '') || attempt >= ATTEMPTS) throw err;
    }
  }
}
