import type { Kysely, Selectable } from 'kysely';
import type { Database, IdempotencyKeysTable } from './schema.js';

/** How long a key stands for its first request (Stripe's 24 h); housekeeping deletes older rows. */
export const WINDOW_MS = 24 * 3600_000;

export type IdempotencyKeyRow = Selectable<IdempotencyKeysTable>;

/** Names one key: the tenant and project it was used in, and the header's value. */
export interface KeyId {
  tenant: string;
  project: string;
  key: string;
}

/**
 * Inserts a pending row for a key unless it has one; true for the one caller whose row went in
 * (one statement, so of concurrent requests with one key, in any process, exactly one wins).
 */
export async function claim(db: Kysely<Database>, id: KeyId, requestHash: string, now: number): Promise<boolean> {
  const res = await db
    .insertInto('idempotency_keys')
    .values({ ...id, request_hash: requestHash, state: 'pending', result: null, created: now })
    .onConflict((oc) => oc.columns(['tenant', 'project', 'key']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** The row of a key, or undefined. */
export async function find(db: Kysely<Database>, id: KeyId): Promise<IdempotencyKeyRow | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('tenant', '=', id.tenant).where('project', '=', id.project).where('key', '=', id.key).executeTakeFirst();
}

/** Records what the request of a pending row stored; false when the row is no longer the one claimed at `created`. */
export async function complete(db: Kysely<Database>, id: KeyId, created: number, result: string): Promise<boolean> {
  const res = await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', result })
    .where('tenant', '=', id.tenant)
    .where('project', '=', id.project)
    .where('key', '=', id.key)
    .where('created', '=', created)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/**
 * Deletes the row of a key if it is still the one created at `created`: a refused request
 * releasing its key, or the take-over of an expired or abandoned row (of several takers, one deletes it).
 */
export async function remove(db: Kysely<Database>, id: KeyId, created: number): Promise<boolean> {
  const res = await db
    .deleteFrom('idempotency_keys')
    .where('tenant', '=', id.tenant)
    .where('project', '=', id.project)
    .where('key', '=', id.key)
    .where('created', '=', created)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Keys created before `before`, oldest first, at most `limit`. */
export async function expired(db: Kysely<Database>, before: number, limit: number): Promise<KeyId[]> {
  return db.selectFrom('idempotency_keys').select(['tenant', 'project', 'key']).where('created', '<', before).orderBy('created').limit(limit).execute();
}

/** Deletes the given keys if they are still older than `before`; the number deleted. */
export async function deleteExpired(db: Kysely<Database>, keys: readonly KeyId[], before: number): Promise<number> {
  if (keys.length === 0) return 0;
  const res = await db
    .deleteFrom('idempotency_keys')
    .where('created', '<', before)
    .where((eb) => eb.or(keys.map((k) => eb.and([eb('tenant', '=', k.tenant), eb('project', '=', k.project), eb('key', '=', k.key)]))))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
