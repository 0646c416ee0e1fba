import { createHash } from 'node:crypto';
import type { Context } from '../context.js';
import { repoFiles, type RepoFileRow } from '../store/index.js';

/** The final state of one path after a request: new content, or null to delete it. */
export interface Change {
  readonly path: string;
  readonly data: Buffer | null;
}

/** What happened to one path. */
export type Applied =
  | { readonly path: string; readonly kind: 'written'; readonly created: boolean; readonly row: RepoFileRow }
  | { readonly path: string; readonly kind: 'removed'; readonly row: RepoFileRow }
  | { readonly path: string; readonly kind: 'absent' };

/** The blob key of content: repository blobs are content-addressed, so equal files share one blob. */
export const blobKeyOf = (sha256: string): string => `repo/${sha256}`;

export const sha256Of = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

// A blob that exists already has this very content (the key is its hash), so it is not rewritten.
async function storeMissingBlobs(ctx: Context, blobs: Map<string, Buffer>): Promise<void> {
  for (const [key, data] of blobs) if ((await ctx.blobs.size(key)) === undefined) await ctx.blobs.put(key, data);
}

/** Deletes the blobs among `keys` that no row references any more. */
export async function collectGarbage(ctx: Context, keys: readonly string[]): Promise<void> {
  for (const key of await repoFiles.unreferencedBlobs(ctx.db.kysely, keys)) await ctx.blobs.delete(key);
}

/**
 * Applies a set of changes all-or-nothing: blobs are written first (harmless while no row
 * points at them), then every index row changes in one transaction, then blobs that lost
 * their last reference are deleted. Callers validate and authorize before calling.
 */
export async function applyChanges(ctx: Context, changes: readonly Change[]): Promise<Applied[]> {
  const now = ctx.now();
  const staged = changes.map((c) => ({ ...c, sha256: c.data ? sha256Of(c.data) : null }));
  const newBlobs = new Map<string, Buffer>();
  for (const c of staged) if (c.data && c.sha256) newBlobs.set(blobKeyOf(c.sha256), c.data);
  await storeMissingBlobs(ctx, newBlobs);

  const released: string[] = [];
  const applied = await repoFiles.changeRepoFiles(ctx.db.kysely, staged.map((c) => c.path), (before) => {
    const out: Applied[] = [];
    const put: RepoFileRow[] = [];
    const remove: string[] = [];
    for (const c of staged) {
      const prev = before.get(c.path);
      if (prev) released.push(prev.blob_key);
      if (c.data && c.sha256) {
        const row: RepoFileRow = { path: c.path, size: c.data.length, sha256: c.sha256, blob_key: blobKeyOf(c.sha256), created: prev?.created ?? now, updated: now };
        put.push(row);
        out.push({ path: c.path, kind: 'written', created: !prev, row });
      } else if (prev) {
        remove.push(c.path);
        out.push({ path: c.path, kind: 'removed', row: prev });
      } else {
        out.push({ path: c.path, kind: 'absent' });
      }
    }
    return { put, remove, result: out };
  });
  await ctx.readMostly.changed();

  // Another request may have collected one of our blobs between our write and our commit
  // (it saw no row yet); writing it again closes that window.
  await storeMissingBlobs(ctx, newBlobs);
  await collectGarbage(ctx, released.filter((k) => !newBlobs.has(k)));
  return applied;
}
