import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Migration } from 'kysely';

/**
 * An id per tenant and project row, which tokens carry, so a tenant or project deleted and
 * created again under the same name does not accept the old tokens. Rows that exist already get
 * a random id each.
 */
export const tokenIdentity: Migration = {
  async up(db: Kysely<unknown>) {
    for (const table of ['tenants', 'projects'] as const) {
      await db.schema.alterTable(table).addColumn('uid', 'text', (c) => c.notNull().defaultTo('')).execute();
      const rows = await sql<{ tenant: string; name: string }>`select ${sql.raw(table === 'tenants' ? 'name as tenant' : 'tenant')}, name from ${sql.table(table)}`.execute(db);
      for (const row of rows.rows) {
        const where = table === 'tenants' ? sql`name = ${row.name}` : sql`tenant = ${row.tenant} and name = ${row.name}`;
        await sql`update ${sql.table(table)} set uid = ${randomUUID()} where ${where}`.execute(db);
      }
    }
  },
};
