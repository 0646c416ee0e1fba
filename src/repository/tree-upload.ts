import type { Principal } from '../auth/index.js';
import { checkRepositoryFile } from '../config/ion/index.js';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { readZip, zipGate, zipLimits } from '../zip/index.js';
import { authorizePath, requireScopesExist } from './access.js';
import { applyChanges, type Change } from './changes.js';
import { writtenView, type FileWritten } from './files.js';
import { parseFilePath, type RepoPath } from './paths.js';

/** Options of a tree upload (query parameters). */
export interface TreeUploadOptions {
  /** true: a zero-byte file entry deletes that repository file; false: it is stored empty. @defaultValue true */
  removeEmpty: boolean;
  /** Accepted for compatibility; both values store the ZIP's files one by one. @defaultValue zip */
  cometXmlMode: 'zip' | 'fileset';
}

/** Re-raises an error about one ZIP entry with the entry named in the details. */
function forEntry(err: unknown, entry: string): never {
  if (!(err instanceof AppError)) throw err;
  const details = (err.details ?? [{ message: err.publicMessage }]).map((d) => ({ field: entry, message: d.field && d.field !== 'path' ? `${d.field}: ${d.message}` : d.message }));
  const message = err.publicMessage.includes(entry) ? err.publicMessage : `ZIP entry "${entry}": ${err.publicMessage}`;
  throw new AppError(err.code, message, { details, cause: err.options.cause ?? err });
}

/**
 * Stores the files of a ZIP (paths from the repository root) all-or-nothing: the archive
 * is checked for safety, every entry for its path, the token's rights and, for config
 * files, the schema, before anything is written. Folder entries are ignored.
 */
export async function uploadTree(ctx: Context, p: Principal, zip: Buffer, opts: TreeUploadOptions): Promise<{ written: FileWritten[]; removed: string[] }> {
  const entries = (await zipGate(ctx.settings).run(() => readZip(zip, zipLimits(ctx.settings)))).filter((e) => e.kind === 'file');
  const targets: RepoPath[] = [];
  const seen = new Set<string>();
  for (const entry of entries) {
    try {
      const target = parseFilePath(entry.name);
      // Two names can normalise (NFC) to one path; that is as ambiguous as a duplicate entry.
      if (seen.has(target.path)) throw new AppError('invalid_zip', `ZIP entry "${entry.name}": duplicate path ${target.path}`);
      seen.add(target.path);
      authorizePath(p, target, `ZIP entry ${JSON.stringify(entry.name)}`);
      targets.push(target);
    } catch (err) {
      forEntry(err, entry.name);
    }
  }
  await requireScopesExist(ctx, targets, (target, err) => forEntry(err, target.path));
  const changes: Change[] = entries.map((entry, i) => {
    const path = targets[i]!.path;
    if (entry.data.length === 0 && opts.removeEmpty) return { path, data: null };
    try {
      checkRepositoryFile(path, entry.data);
    } catch (err) {
      forEntry(err, entry.name);
    }
    return { path, data: entry.data };
  });
  const applied = await applyChanges(ctx, changes);
  return {
    written: applied.flatMap((a) => (a.kind === 'written' ? [writtenView(a.row, a.created)] : [])),
    removed: applied.flatMap((a) => (a.kind === 'removed' ? [a.path] : [])),
  };
}
