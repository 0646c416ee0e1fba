import type { Principal } from '../auth/index.js';
import { checkRepositoryFile } from '../config/ion/index.js';
import { readRepositoryBlob } from './lookup.js';
import type { Context } from '../context.js';
import { notFound } from '../errors.js';
import { repoFiles, type RepoFileRow } from '../store/index.js';
import { authorizePath, requireScopeExists } from './access.js';
import { applyChanges } from './changes.js';
import { contentTypeOf } from './content-types.js';
import { parseFilePath } from './paths.js';

/** The answer to a write: where, how big, which content, whether the file is new. */
export interface FileWritten {
  path: string;
  size: number;
  sha256: string;
  created: boolean;
  updated: string;
}

/** A file's content with what is needed to serve it. */
export interface FileContent {
  path: string;
  data: Buffer;
  contentType: string;
  sha256: string;
  updated: string;
}

export const iso = (ms: number): string => new Date(ms).toISOString();

export function writtenView(row: RepoFileRow, created: boolean): FileWritten {
  return { path: row.path, size: row.size, sha256: row.sha256, created, updated: iso(row.updated) };
}

/** Inserts or replaces one file (validated like every write: path, token, tenant/project, config schema). */
export async function putFile(ctx: Context, p: Principal, rawPath: string, data: Buffer): Promise<FileWritten> {
  const target = parseFilePath(rawPath);
  authorizePath(p, target);
  await requireScopeExists(ctx, target.scope);
  checkRepositoryFile(target.path, data);
  const [applied] = await applyChanges(ctx, [{ path: target.path, data }]);
  if (applied?.kind !== 'written') throw new Error('write did not happen');
  return writtenView(applied.row, applied.created);
}

/** Reads one file; 404 when absent. */
export async function getFile(ctx: Context, p: Principal, rawPath: string): Promise<FileContent> {
  const target = parseFilePath(rawPath);
  authorizePath(p, target);
  const row = await repoFiles.findRepoFile(ctx.db.kysely, target.path);
  if (!row) throw notFound(`repository file ${target.path}`);
  return { path: row.path, data: await readRepositoryBlob(ctx, row), contentType: contentTypeOf(row.path), sha256: row.sha256, updated: iso(row.updated) };
}

/** Deletes one file (and its blob when no other file shares it); 404 when absent. */
export async function deleteFile(ctx: Context, p: Principal, rawPath: string): Promise<{ path: string; deleted: true }> {
  const target = parseFilePath(rawPath);
  authorizePath(p, target);
  const [applied] = await applyChanges(ctx, [{ path: target.path, data: null }]);
  if (applied?.kind !== 'removed') throw notFound(`repository file ${target.path}`);
  return { path: target.path, deleted: true };
}
