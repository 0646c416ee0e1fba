import type { Context } from '../context.js';
import { repoFiles, tickets } from '../store/index.js';

/** Removes the tickets of a tenant (or of one project), open or not, with their input and artifact blobs. */
export async function removeTickets(ctx: Context, tenant: string, project?: string): Promise<number> {
  const keys = await tickets.deleteTicketsOf(ctx.db.kysely, tenant, project);
  for (const key of new Set(keys)) await ctx.blobs.delete(key);
  return keys.length;
}

/** Removes the repository files under a folder prefix (ending in `/`), and blobs no other file shares. */
export async function removeRepositoryFiles(ctx: Context, prefix: string): Promise<number> {
  const orphans = await repoFiles.deleteRepoFilesUnder(ctx.db.kysely, prefix);
  await ctx.readMostly.changed();
  for (const key of orphans) await ctx.blobs.delete(key);
  return orphans.length;
}
