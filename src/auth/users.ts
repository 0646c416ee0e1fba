import { AppError } from '../errors.js';
import { tenants, users, type Db, type UserRow } from '../store/index.js';
import { userStamp, type TokenIdentity } from './identity.js';
import { checkNewPassword, hashPassword, randomPassword, verifyPassword } from './passwords.js';
import { type Scope, scopes, SYSTEM_TENANT } from './principal.js';

export const OPERATOR_TENANT = '';
export const namePattern = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/;

/** A user as shown by the CLI: never the hash. */
export interface UserView {
  name: string;
  tenant: string | null;
  project: string | null;
  scope: Scope;
  operator: boolean;
  created: string;
}

function view(row: UserRow): UserView {
  return {
    name: row.name,
    tenant: row.operator ? null : row.tenant,
    project: row.operator ? null : row.project,
    scope: row.scope as Scope,
    operator: row.operator === 1,
    created: new Date(row.created).toISOString(),
  };
}

// Verifying against this keeps the time of "unknown user" equal to "wrong password".
let dummyHash: Promise<string> | undefined;

/** The grant a token request may receive, after the password and entitlements check. */
export interface Grant {
  user: string;
  tenant: string;
  project: string;
  scope: Scope;
  operator: boolean;
  /** What the token is tied to; it stops working when that changes. */
  identity: TokenIdentity;
}

/** The ids of an existing tenant and project, or undefined when either is gone. */
async function rowIds(db: Db, tenant: string, project: string): Promise<{ tenantId: string; projectId: string } | undefined> {
  const [t, p] = await Promise.all([tenants.findTenant(db.kysely, tenant), tenants.findProject(db.kysely, tenant, project)]);
  return t && p ? { tenantId: t.uid, projectId: p.uid } : undefined;
}

/** Checks a password grant for tenant/project/scope; throws invalid_grant or invalid_scope. */
export async function authenticate(db: Db, req: { tenant: string; username: string; password: string; project: string; scope: string }): Promise<Grant> {
  if (!scopes.includes(req.scope as Scope)) {
    throw new AppError('invalid_scope', `scope must be one of ${scopes.join(', ')}`);
  }
  const scope = req.scope as Scope;
  const row = (await users.findUser(db.kysely, req.tenant, req.username)) ?? (await users.findUser(db.kysely, OPERATOR_TENANT, req.username));
  dummyHash ??= hashPassword(randomPassword());
  const ok = await verifyPassword(req.password, row?.password_hash ?? (await dummyHash));
  if (!row || !ok) throw new AppError('invalid_grant', 'user name or password is wrong');

  const user = { userTenant: row.tenant, userStamp: userStamp(row.password_hash) };
  if (row.operator === 1) {
    if (req.tenant === SYSTEM_TENANT) {
      return { user: row.name, tenant: req.tenant, project: req.project, scope, operator: scope === 'admin', identity: { ...user, tenantId: null, projectId: null } };
    }
    const ids = await rowIds(db, req.tenant, req.project);
    if (!ids) throw new AppError('invalid_grant', `tenant ${req.tenant} has no project ${req.project}`);
    return { user: row.name, tenant: req.tenant, project: req.project, scope, operator: false, identity: { ...user, ...ids } };
  }
  if (row.project !== req.project) throw new AppError('invalid_grant', `user is not entitled to project ${req.project}`);
  if (scope === 'admin' && row.scope !== 'admin') throw new AppError('invalid_scope', 'user does not hold scope admin');
  const ids = await rowIds(db, row.tenant, row.project);
  if (!ids) throw new AppError('invalid_grant', `user is not entitled to project ${req.project}`);
  return { user: row.name, tenant: row.tenant, project: row.project, scope, operator: false, identity: { ...user, ...ids } };
}

/**
 * Gives a tenant user a new password. Its tokens stop working (they carry a stamp of the old
 * password hash). With `project`, the user must belong to that project.
 */
export async function setPassword(db: Db, input: { name: string; tenant: string; project?: string; password: string }): Promise<UserView> {
  const row = await users.findUser(db.kysely, input.tenant, input.name);
  if (!row || (input.project !== undefined && row.project !== input.project)) {
    throw new AppError('not_found', `user ${input.name} not found in tenant ${input.tenant}${input.project !== undefined ? `, project ${input.project}` : ''}`);
  }
  checkNewPassword(input.password);
  const hash = await hashPassword(input.password);
  if (!(await users.updatePasswordHash(db.kysely, input.tenant, input.name, hash))) throw new AppError('not_found', `user ${input.name} not found in tenant ${input.tenant}`);
  return view({ ...row, password_hash: hash });
}

/** Adds a tenant user bound to one project with a scope (admin implies jobs). */
export async function addUser(db: Db, input: { name: string; tenant: string; project: string; scope: string; password: string }): Promise<UserView> {
  if (!namePattern.test(input.name)) throw new AppError('bad_request', 'user name must be 1-128 of A-Z a-z 0-9 . _ @ -');
  if (!scopes.includes(input.scope as Scope)) throw new AppError('bad_request', `scope must be one of ${scopes.join(', ')}`);
  checkNewPassword(input.password);
  const project = await tenants.findProject(db.kysely, input.tenant, input.project);
  if (!project) throw new AppError('not_found', `tenant ${input.tenant} with project ${input.project} not found`);
  const row: UserRow = {
    name: input.name,
    tenant: input.tenant,
    project: input.project,
    scope: input.scope,
    password_hash: await hashPassword(input.password),
    operator: 0,
    created: Date.now(),
  };
  if (!(await users.insertUser(db.kysely, row))) throw new AppError('conflict', `user ${input.name} exists in tenant ${input.tenant}`);
  return view(row);
}

/** Lists users (optionally of one tenant). */
export async function listUsers(db: Db, tenant?: string): Promise<UserView[]> {
  return (await users.listUsers(db.kysely, tenant)).map(view);
}

/** Removes a tenant user, or an operator when tenant is omitted. */
export async function removeUser(db: Db, name: string, tenant?: string): Promise<void> {
  if (!(await users.deleteUser(db.kysely, tenant ?? OPERATOR_TENANT, name))) {
    throw new AppError('not_found', `user ${name} not found${tenant ? ` in tenant ${tenant}` : ''}`);
  }
}
