import { createHash } from 'node:crypto';
import { tenants, users, type Db } from '../store/index.js';
import { SYSTEM_TENANT } from './principal.js';

/**
 * What a token was issued for, beyond its names: the user's row (tenant `''` for operators) and
 * password, and the ids of the tenant and project rows. A token whose identity no longer holds —
 * the user removed or given a new password, the tenant or project deleted (and maybe created
 * again under the same name) — is refused.
 */
export interface TokenIdentity {
  /** Tenant of the user's row: `''` for an operator. */
  userTenant: string;
  /** `userStamp` of the user's password hash when the token was issued. */
  userStamp: string;
  /** Row ids; null for the operator token (tenant `system` has no row). */
  tenantId: string | null;
  projectId: string | null;
}

/**
 * A short digest of a password hash. Every hash has its own random salt, so a new password —
 * even the same one set again, or a user removed and added again — gives a new stamp. The salt
 * is never shown, so the stamp in a (readable) token helps no one guess the password.
 */
export function userStamp(passwordHash: string): string {
  return createHash('sha256').update(passwordHash).digest('base64url').slice(0, 22);
}

/** Most identities kept in the cache; the oldest go first. */
const MAX_ENTRIES = 10_000;

/**
 * Checks token identities against the store through a small per-process cache. A cached value
 * that agrees with the token is trusted for `maxAgeMs`, so revocation reaches every process
 * within that time; a value that disagrees is read again at once, so a token for a row created
 * a moment ago is never refused on stale knowledge.
 */
export class IdentityCheck {
  private readonly cache = new Map<string, { value: string | null; at: number }>();

  constructor(
    private readonly db: Db,
    private readonly maxAgeMs: number,
    private readonly now: () => number,
  ) {}

  /** Whether the user, tenant and project the token names are still the ones it was issued for. */
  async holds(user: string, tenant: string, project: string, id: TokenIdentity): Promise<boolean> {
    const k = this.db.kysely;
    const stampOf = async () => {
      const row = await users.findUser(k, id.userTenant, user);
      return row ? userStamp(row.password_hash) : null;
    };
    if (!(await this.agrees(`user\n${id.userTenant}\n${user}`, id.userStamp, stampOf))) return false;
    if (tenant === SYSTEM_TENANT) return id.tenantId === null && id.projectId === null;
    const tenantId = async () => (await tenants.findTenant(k, tenant))?.uid ?? null;
    const projectId = async () => (await tenants.findProject(k, tenant, project))?.uid ?? null;
    return (await this.agrees(`tenant\n${tenant}`, id.tenantId, tenantId)) && (await this.agrees(`project\n${tenant}\n${project}`, id.projectId, projectId));
  }

  private async agrees(key: string, expected: string | null, load: () => Promise<string | null>): Promise<boolean> {
    if (expected === null) return false;
    const now = this.now();
    const hit = this.cache.get(key);
    if (hit && hit.value === expected && now - hit.at < this.maxAgeMs) return true;
    const value = await load();
    this.cache.delete(key);
    this.cache.set(key, { value, at: now });
    if (this.cache.size > MAX_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    return value === expected;
  }
}
