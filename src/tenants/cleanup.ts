import type { Context } from '../context.js';
import { repoFiles } from '../store/index.js';

/** Removes every repository file under a folder, and blobs no other file shares. */
export async function removeRepositoryFolder(ctx: Context, prefix: string): Promise<number> {
  const rows = await repoFiles.deleteRepoFilesUnder(ctx.db.kysely, prefix);
  for (const key of new Set(rows.map((r) => r.blob_key))) {
    if (!(await repoFiles.blobInUse(ctx.db.kysely, key))) await ctx.blobs.delete(key);
  }
  return rows.length;
}
