import type { Kysely, Selectable } from 'kysely';
import type { Database, RepoFilesTable } from './schema.js';

export type RepoFileRow = Selectable<RepoFilesTable>;

/** One repository file's index row. */
export async function findRepoFile(db: Kysely<Database>, path: string): Promise<RepoFileRow | undefined> {
  return db.selectFrom('repo_files').selectAll().where('path', '=', path).executeTakeFirst();
}

/** The first of `paths` that exists, in the given order (project → tenant → global lookups). */
export async function findFirstRepoFile(db: Kysely<Database>, paths: string[]): Promise<RepoFileRow | undefined> {
  if (paths.length === 0) return undefined;
  const rows = await db.selectFrom('repo_files').selectAll().where('path', 'in', paths).execute();
  for (const p of paths) {
    const hit = rows.find((r) => r.path === p);
    if (hit) return hit;
  }
  return undefined;
}

/** Rows whose path starts with `prefix` (a folder ending in `/`, or '' for all). */
export async function listRepoFiles(db: Kysely<Database>, prefix: string): Promise<RepoFileRow[]> {
  let q = db.selectFrom('repo_files').selectAll().orderBy('path');
  if (prefix !== '') {
    // Range scan instead of LIKE so `%` and `_` in names need no escaping.
    q = q.where('path', '>=', prefix).where('path', '<', prefix + '\u{10FFFF}');
  }
  return q.execute();
}

/**
 * Deletes every row under a folder prefix (a tenant's or a project's files); returns the blob
 * keys of the deleted rows that no remaining row shares, for the caller to delete.
 */
export async function deleteRepoFilesUnder(db: Kysely<Database>, prefix: string): Promise<string[]> {
  const rows = await listRepoFiles(db, prefix);
  if (rows.length === 0) return [];
  await db.deleteFrom('repo_files').where('path', '>=', prefix).where('path', '<', prefix + '\u{10FFFF}').execute();
  return unreferencedBlobs(db, rows.map((r) => r.blob_key));
}

// Long IN lists are split so a 10,000-entry tree upload stays below parameter limits.
const CHUNK = 500;
function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** The rows of exactly these paths (any order; missing paths are simply absent). */
export async function findRepoFiles(db: Kysely<Database>, paths: readonly string[]): Promise<RepoFileRow[]> {
  const rows: RepoFileRow[] = [];
  for (const part of chunks(paths)) rows.push(...(await db.selectFrom('repo_files').selectAll().where('path', 'in', part).execute()));
  return rows;
}

/** Inserts or replaces a file's row in one statement, so concurrent writers of one path cannot collide. */
export async function putRepoFile(db: Kysely<Database>, row: RepoFileRow): Promise<void> {
  await db
    .insertInto('repo_files')
    .values(row)
    .onConflict((oc) => oc.column('path').doUpdateSet({ size: row.size, sha256: row.sha256, blob_key: row.blob_key, updated: row.updated }))
    .execute();
}

/** Of these blob keys, the ones no row references any more (garbage after a replace or delete). */
export async function unreferencedBlobs(db: Kysely<Database>, blobKeys: readonly string[]): Promise<string[]> {
  const keys = [...new Set(blobKeys)];
  const inUse = new Set<string>();
  for (const part of chunks(keys)) {
    const used = await db.selectFrom('repo_files').select('blob_key').distinct().where('blob_key', 'in', part).execute();
    used.forEach((r) => inUse.add(r.blob_key));
  }
  return keys.filter((k) => !inUse.has(k));
}

/** Deletes the rows of these paths (missing ones are ignored). */
export async function deleteRepoFiles(db: Kysely<Database>, paths: readonly string[]): Promise<void> {
  for (const part of chunks(paths)) await db.deleteFrom('repo_files').where('path', 'in', part).execute();
}

/** Rows under any of several folder prefixes, in one query (ordered by path). */
export async function listRepoFilesUnderAny(db: Kysely<Database>, prefixes: string[]): Promise<RepoFileRow[]> {
  if (prefixes.length === 0) return [];
  return db
    .selectFrom('repo_files')
    .selectAll()
    .where((eb) => eb.or(prefixes.map((p) => eb.and([eb('path', '>=', p), eb('path', '<', p + '\u{10FFFF}')]))))
    .orderBy('path')
    .execute();
}

/**
 * Changes the index rows of `paths` all-or-nothing: in one transaction it reads the rows as they
 * are, lets `decide` say which rows to write and which paths to remove, and applies that.
 * Returns `decide`'s result.
 */
export async function changeRepoFiles<T>(
  db: Kysely<Database>,
  paths: readonly string[],
  decide: (before: ReadonlyMap<string, RepoFileRow>) => { put: readonly RepoFileRow[]; remove: readonly string[]; result: T },
): Promise<T> {
  return db.transaction().execute(async (trx) => {
    const before = new Map((await findRepoFiles(trx, paths)).map((r) => [r.path, r]));
    const { put, remove, result } = decide(before);
    for (const row of put) await putRepoFile(trx, row);
    await deleteRepoFiles(trx, remove);
    return result;
  });
}
