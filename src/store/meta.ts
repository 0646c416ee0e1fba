import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Reads a meta value. */
export async function getMeta(db: Kysely<Database>, key: string): Promise<string | null> {
  const row = await db.selectFrom('meta').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value ?? null;
}

/** Stores `value` under `key` unless a value is there already; returns the value that won. */
export async function putMetaOnce(db: Kysely<Database>, key: string, value: string): Promise<string> {
  await db.insertInto('meta').values({ key, value }).onConflict((oc) => oc.column('key').doNothing()).execute();
  return (await getMeta(db, key))!;
}
