import type { Generated } from 'kysely';

/** Table shapes shared by SQLite and PostgreSQL. Times are epoch milliseconds. */
export interface MetaTable {
  key: string;
  value: string;
}

export interface UsersTable {
  name: string;
  /** Empty string for operators (not bound to a tenant). */
  tenant: string;
  /** Empty string for operators. */
  project: string;
  scope: string;
  password_hash: string;
  operator: number;
  created: number;
}

export interface TenantsTable {
  name: string;
  created: number;
  updated: number;
}

export interface ProjectsTable {
  tenant: string;
  name: string;
  keep_until: string | null;
  expires: number | null;
  created: number;
  updated: number;
}

export interface RepoFilesTable {
  path: string;
  size: number;
  sha256: string;
  blob_key: string;
  created: number;
  updated: number;
}

export interface Database {
  meta: MetaTable;
  users: UsersTable;
  tenants: TenantsTable;
  projects: ProjectsTable;
  repo_files: RepoFilesTable;
  /** Placeholder so Generated stays imported for later tables. */
  _unused?: { id: Generated<number> };
}
