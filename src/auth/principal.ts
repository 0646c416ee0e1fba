import { AppError, forbidden } from '../errors.js';

export type Scope = 'jobs' | 'admin';
export const scopes: readonly Scope[] = ['jobs', 'admin'];

/** The tenant of operator tokens; it cannot be created as a real tenant. */
export const SYSTEM_TENANT = 'system';

/** Who is calling, as the verified token says. */
export interface Principal {
  readonly user: string;
  readonly tenant: string;
  readonly project: string;
  readonly scope: Scope;
  /** Operator token: issued to an operator for tenant `system` with scope `admin`. */
  readonly operator: boolean;
  readonly tokenId: string;
}

/** Global endpoints (/tenants, /statistics, global repository files) need the operator token. */
export function requireOperator(p: Principal): void {
  if (!p.operator) throw forbidden('this resource needs the operator token (tenant system, scope admin)');
}

/** Render, ticket and storage endpoints: a token for exactly this tenant and project. */
export function requireProject(p: Principal, tenant: string, project: string, allowed: readonly Scope[] = ['jobs', 'admin']): void {
  if (p.tenant !== tenant || p.project !== project) throw forbidden(`token is not valid for tenant ${tenant}, project ${project}`);
  if (!allowed.includes(p.scope)) throw forbidden(`scope ${p.scope} is not enough; needs ${allowed.join(' or ')}`);
}

/** Admin on this tenant and project, or the operator. */
export function requireProjectAdmin(p: Principal, tenant: string, project: string): void {
  if (p.operator) return;
  requireProject(p, tenant, project, ['admin']);
}

export function unauthorized(message: string): AppError {
  return new AppError('unauthorized', message, { headers: { 'www-authenticate': 'Bearer' } });
}
