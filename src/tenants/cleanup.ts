import type { Context } from '../context.js';
import { tickets } from '../store/index.js';

/** Removes the tickets of a tenant (or of one project), open or not, with their input and artifact blobs. */
export async function removeTickets(ctx: Context, tenant: string, project?: string): Promise<number> {
  const keys = await tickets.deleteTicketsOf(ctx.db.kysely, tenant, project);
  for (const key of new Set(keys)) await ctx.blobs.delete(key);
  return keys.length;
}
