import { randomUUID } from 'node:crypto';
import type { Context } from '../context.js';
import { AppError, notFound } from '../errors.js';
import { tenants, users, type ProjectRow, type TenantRow } from '../store/index.js';
import { assertName, nameFilter } from './names.js';
import { removeRepositoryFiles, removeTickets } from './cleanup.js';

export const keepUntilValues = ['shipped', 'expired', 'shippedOrExpired', 'forever'] as const;
export type KeepUntil = (typeof keepUntilValues)[number];

/** A tenant as the API shows it. */
export interface TenantView {
  name: string;
  projects: number;
  created: string;
  updated: string;
}

/** A project as the API shows it. */
export interface ProjectView {
  tenant: string;
  name: string;
  keepUntil: KeepUntil | null;
  expires: string | null;
  created: string;
  updated: string;
}

const iso = (ms: number): string => new Date(ms).toISOString();

function projectView(row: ProjectRow): ProjectView {
  return {
    tenant: row.tenant,
    name: row.name,
    keepUntil: (row.keep_until as KeepUntil | null) ?? null,
    expires: row.expires === null ? null : iso(row.expires),
    created: iso(row.created),
    updated: iso(row.updated),
  };
}

/** Lists tenants whose name matches the pattern (glob or RE2 regex). */
export async function listTenants(ctx: Context, pattern?: string): Promise<TenantView[]> {
  const match = nameFilter(pattern);
  const rows = await tenants.listTenants(ctx.db.kysely);
  return rows.filter((r) => match(r.name)).map((r) => ({ name: r.name, projects: r.projects, created: iso(r.created), updated: iso(r.updated) }));
}

/** One tenant; 404 when missing. */
export async function getTenant(ctx: Context, name: string): Promise<TenantView> {
  const row = await tenants.findTenant(ctx.db.kysely, name);
  if (!row) throw notFound(`tenant ${name}`);
  const projects = await tenants.listProjects(ctx.db.kysely, name);
  return { name: row.name, projects: projects.length, created: iso(row.created), updated: iso(row.updated) };
}

/** Creates a tenant; 409 when it exists. */
export async function createTenant(ctx: Context, name: string): Promise<TenantView> {
  assertName('tenant', name);
  const now = ctx.now();
  const row: TenantRow = { name, uid: randomUUID(), created: now, updated: now };
  if (!(await tenants.insertTenant(ctx.db.kysely, row))) throw new AppError('conflict', `tenant ${name} exists already`);
  return { name, projects: 0, created: iso(now), updated: iso(now) };
}

/** Lists a tenant's projects; 404 when the tenant is missing. */
export async function listProjects(ctx: Context, tenant: string, pattern?: string): Promise<ProjectView[]> {
  if (!(await tenants.findTenant(ctx.db.kysely, tenant))) throw notFound(`tenant ${tenant}`);
  const match = nameFilter(pattern);
  return (await tenants.listProjects(ctx.db.kysely, tenant)).filter((r) => match(r.name)).map(projectView);
}

/** One project; 404 when it or its tenant is missing. */
export async function getProject(ctx: Context, tenant: string, name: string): Promise<ProjectView> {
  const row = await tenants.findProject(ctx.db.kysely, tenant, name);
  if (!row) throw notFound(`project ${tenant}/${name}`);
  return projectView(row);
}

/** Throws 404 unless the project exists (used by every tenant-scoped endpoint). */
export async function assertProjectExists(ctx: Context, tenant: string, name: string): Promise<ProjectRow> {
  const row = await ctx.readMostly.findProject(tenant, name);
  if (!row) throw notFound(`project ${tenant}/${name}`);
  return row;
}

/** Creates a project in an existing tenant; 404 without the tenant, 409 when it exists. */
export async function createProject(ctx: Context, tenant: string, input: { name: string; keepUntil?: KeepUntil; expires?: string }): Promise<ProjectView> {
  assertName('project', input.name);
  if (!(await tenants.findTenant(ctx.db.kysely, tenant))) throw notFound(`tenant ${tenant}`);
  let expires: number | null = null;
  if (input.expires !== undefined) {
    expires = Date.parse(input.expires);
    if (Number.isNaN(expires)) throw new AppError('bad_request', 'expires must be an ISO 8601 date-time', { details: [{ field: 'expires', message: 'not a date-time' }] });
  }
  const now = ctx.now();
  const row: ProjectRow = { tenant, name: input.name, uid: randomUUID(), keep_until: input.keepUntil ?? null, expires, created: now, updated: now };
  if (!(await tenants.insertProject(ctx.db.kysely, row))) throw new AppError('conflict', `project ${tenant}/${input.name} exists already`);
  await ctx.readMostly.changed();
  return projectView(row);
}

/** Deletes a tenant with its projects, tickets and artifacts, users and repository files; never refuses. */
export async function deleteTenant(ctx: Context, name: string): Promise<{ deleted: string }> {
  if (!(await tenants.findTenant(ctx.db.kysely, name))) throw notFound(`tenant ${name}`);
  // Tickets first, so no worker claims more work of the tenant while the rest goes.
  await removeTickets(ctx, name);
  await removeRepositoryFiles(ctx, `tenants/${name}/`);
  await users.deleteUsersOf(ctx.db.kysely, name);
  await tenants.deleteTenantRows(ctx.db.kysely, name);
  await ctx.readMostly.changed();
  return { deleted: name };
}

/** Deletes a project with its tickets and artifacts, users and repository files; never refuses. */
export async function deleteProject(ctx: Context, tenant: string, name: string): Promise<{ deleted: string }> {
  if (!(await tenants.findProject(ctx.db.kysely, tenant, name))) throw notFound(`project ${tenant}/${name}`);
  await removeTickets(ctx, tenant, name);
  await removeRepositoryFiles(ctx, `tenants/${tenant}/projects/${name}/`);
  await users.deleteUsersOf(ctx.db.kysely, tenant, name);
  await tenants.deleteProjectRow(ctx.db.kysely, tenant, name);
  await ctx.readMostly.changed();
  return { deleted: `${tenant}/${name}` };
}
