import type { Principal } from '../auth/index.js';
import type { Context } from '../context.js';
import { forbidden, notFound } from '../errors.js';
import { tenants } from '../store/index.js';
import type { PathScope, RepoPath } from './paths.js';

/** Repository endpoints need scope admin: a jobs token may not read or change files. */
export function requireRepositoryScope(p: Principal): void {
  if (p.scope !== 'admin') throw forbidden('repository operations need a token with scope admin');
}

/**
 * The operator may touch every path; a tenant admin only the files of its own project
 * (`tenants/<t>/projects/<p>/…`), so one project cannot change what others inherit.
 */
export function authorizePath(p: Principal, target: RepoPath, label = JSON.stringify(target.path)): void {
  requireRepositoryScope(p);
  if (p.operator) return;
  const s = target.scope;
  if (s.kind === 'project' && s.tenant === p.tenant && s.project === p.project) return;
  throw forbidden(`token for ${p.tenant}/${p.project} may not touch ${label}: only paths under tenants/${p.tenant}/projects/${p.project}/`);
}

/** 404 unless the tenant (and project) a path belongs to exists; global paths always do. */
export async function requireScopeExists(ctx: Context, scope: PathScope): Promise<void> {
  if (scope.kind === 'global') return;
  if (scope.kind === 'tenant') {
    if (!(await tenants.findTenant(ctx.db.kysely, scope.tenant))) throw notFound(`tenant ${scope.tenant}`);
    return;
  }
  if (!(await tenants.findProject(ctx.db.kysely, scope.tenant, scope.project))) throw notFound(`project ${scope.tenant}/${scope.project}`);
}

/** Checks the scopes of many paths once each (bulk and tree writes). */
export async function requireScopesExist(ctx: Context, targets: readonly RepoPath[], onMissing: (target: RepoPath, err: unknown) => never): Promise<void> {
  const checked = new Map<string, Promise<unknown>>();
  for (const t of targets) {
    const key = JSON.stringify(t.scope);
    if (!checked.has(key)) checked.set(key, requireScopeExists(ctx, t.scope).then(() => undefined, (err: unknown) => err));
    const err = await checked.get(key);
    if (err) onMissing(t, err);
  }
}
