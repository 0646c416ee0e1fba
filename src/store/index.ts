export { openDb, migrate, type Db, type Dialect } from './db.js';
export type { Database } from './schema.js';
export * as meta from './meta.js';
export * as users from './users.js';
export * as tenants from './tenants.js';
export * as repoFiles from './repo-files.js';
export type { UserRow } from './users.js';
export type { TenantRow, ProjectRow } from './tenants.js';
export type { RepoFileRow } from './repo-files.js';
