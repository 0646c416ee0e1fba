import { RE2JS } from 're2js';
import type { Principal } from '../auth/index.js';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { repoFiles } from '../store/index.js';
import { authorizePath, requireScopeExists } from './access.js';
import { iso } from './files.js';
import { parseFolderPath } from './paths.js';

/** The contract's default: configuration, data and stylesheet files. */
export const DEFAULT_TREE_PATTERN = '^.*\\.(ion|json|zip|xslt|w2ml)$';
export const MAX_PATTERN_LENGTH = 256;

/** One file of a listing. */
export interface TreeFile {
  path: string;
  name: string;
  size: number;
  sha256: string;
  updated: string;
}

/** A folder listing. */
export interface TreeListing {
  path: string;
  recursive: boolean;
  pattern: string;
  files: TreeFile[];
  folders: string[];
}

/** Compiles a listing pattern on RE2 (linear time); '' matches everything. */
export function compilePattern(pattern: string): (text: string) => boolean {
  if (pattern === '') return () => true;
  const invalid = (reason: string) => new AppError('invalid_pattern', `pattern ${reason}`, { details: [{ field: 'pattern', message: reason }] });
  if (pattern.length > MAX_PATTERN_LENGTH) throw invalid(`is longer than ${MAX_PATTERN_LENGTH} characters`);
  try {
    const re = RE2JS.compile(pattern);
    return (text) => re.matcher(text).find();
  } catch (err) {
    // RE2 has no backreferences or lookaround; those land here too.
    throw invalid(`is not a supported regular expression (RE2 syntax, no backreferences or lookaround): ${(err as Error).message}`);
  }
}

/**
 * Lists the files of a folder whose path relative to that folder matches `pattern`
 * (searched, so anchor it with ^…$ for a full match). Not recursive: only the files
 * directly inside, plus the names of the subfolders; recursive: every file below.
 */
export async function listTree(ctx: Context, p: Principal, rawFolder: string, opts: { recursive: boolean; pattern?: string }): Promise<TreeListing> {
  const folder = parseFolderPath(rawFolder);
  authorizePath(p, folder, `folder ${JSON.stringify(folder.path || '/')}`);
  const pattern = opts.pattern ?? DEFAULT_TREE_PATTERN;
  const matches = compilePattern(pattern);
  await requireScopeExists(ctx, folder.scope);
  const prefix = folder.path === '' ? '' : `${folder.path}/`;
  const files: TreeFile[] = [];
  const folders = new Set<string>();
  for (const row of await repoFiles.listRepoFiles(ctx.db.kysely, prefix)) {
    const rel = row.path.slice(prefix.length);
    const slash = rel.indexOf('/');
    if (!opts.recursive && slash >= 0) {
      folders.add(rel.slice(0, slash));
      continue;
    }
    if (!matches(rel)) continue;
    files.push({ path: row.path, name: rel.slice(rel.lastIndexOf('/') + 1), size: row.size, sha256: row.sha256, updated: iso(row.updated) });
  }
  return { path: folder.path, recursive: opts.recursive, pattern, files, folders: [...folders].sort() };
}
