import type { Kysely, Selectable } from 'kysely';
import type { Database, ProjectsTable, TenantsTable } from './schema.js';

export type TenantRow = Selectable<TenantsTable>;
export type ProjectRow = Selectable<ProjectsTable>;

/** All tenants with their project counts, by name. */
export async function listTenants(db: Kysely<Database>): Promise<(TenantRow & { projects: number })[]> {
  const rows = await db
    .selectFrom('tenants')
    .leftJoin('projects', 'projects.tenant', 'tenants.name')
    .select(['tenants.name', 'tenants.uid', 'tenants.created', 'tenants.updated'])
    .select((eb) => eb.fn.count<number>('projects.name').as('projects'))
    .groupBy(['tenants.name', 'tenants.uid', 'tenants.created', 'tenants.updated'])
    .orderBy('tenants.name')
    .execute();
  return rows.map((r) => ({ ...r, projects: Number(r.projects) }));
}

/** One tenant, or undefined. */
export async function findTenant(db: Kysely<Database>, name: string): Promise<TenantRow | undefined> {
  return db.selectFrom('tenants').selectAll().where('name', '=', name).executeTakeFirst();
}

/** Inserts a tenant; false when it exists. */
export async function insertTenant(db: Kysely<Database>, row: TenantRow): Promise<boolean> {
  const res = await db.insertInto('tenants').values(row).onConflict((oc) => oc.column('name').doNothing()).executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Deletes a tenant row and its project rows (and the idempotency keys of its render requests). */
export async function deleteTenantRows(db: Kysely<Database>, name: string): Promise<boolean> {
  await db.deleteFrom('idempotency_keys').where('tenant', '=', name).execute();
  await db.deleteFrom('projects').where('tenant', '=', name).execute();
  const res = await db.deleteFrom('tenants').where('name', '=', name).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Projects of a tenant, by name. */
export async function listProjects(db: Kysely<Database>, tenant: string): Promise<ProjectRow[]> {
  return db.selectFrom('projects').selectAll().where('tenant', '=', tenant).orderBy('name').execute();
}

/** One project, or undefined. */
export async function findProject(db: Kysely<Database>, tenant: string, name: string): Promise<ProjectRow | undefined> {
  return db.selectFrom('projects').selectAll().where('tenant', '=', tenant).where('name', '=', name).executeTakeFirst();
}

/** Inserts a project; false when it exists. */
export async function insertProject(db: Kysely<Database>, row: ProjectRow): Promise<boolean> {
  const res = await db.insertInto('projects').values(row).onConflict((oc) => oc.columns(['tenant', 'name']).doNothing()).executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Deletes a project row (and the idempotency keys of its render requests). */
export async function deleteProjectRow(db: Kysely<Database>, tenant: string, name: string): Promise<boolean> {
  await db.deleteFrom('idempotency_keys').where('tenant', '=', tenant).where('project', '=', name).execute();
  const res = await db.deleteFrom('projects').where('tenant', '=', tenant).where('name', '=', name).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
