import type { Context } from '../context.js';
import { repoFiles } from '../store/index.js';
import { collectGarbage } from './changes.js';

/** Removes every repository file under a folder prefix (ending in `/`), and blobs no other file shares. */
export async function removeRepositoryFolder(ctx: Context, prefix: string): Promise<number> {
  const rows = await repoFiles.deleteRepoFilesUnder(ctx.db.kysely, prefix);
  await collectGarbage(ctx, rows.map((r) => r.blob_key));
  return rows.length;
}
