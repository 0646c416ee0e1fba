import { sql, type ExpressionBuilder, type Kysely } from 'kysely';
import type { Database } from './schema.js';

// Housekeeping SQL. Every delete is a candidate select followed by a conditional
// DELETE/UPDATE … RETURNING: only the rows this statement really removed come back, so when
// two processes work on the same batch, each blob is deleted by exactly one of them.

/**
 * Compare-and-set on a `meta` row holding the epoch ms when the next round is due: true for
 * the one caller whose update moved it from due (≤ now) to `next`. No leader, no lock held.
 */
export async function claimRound(db: Kysely<Database>, key: string, now: number, next: number): Promise<boolean> {
  await db.insertInto('meta').values({ key, value: instant(0) }).onConflict((oc) => oc.column('key').doNothing()).execute();
  const won = await db.updateTable('meta').set({ value: instant(next) }).where('key', '=', key).where('value', '<=', instant(now)).returning('key').executeTakeFirst();
  return won !== undefined;
}

// Fixed-width digits compare as text like numbers, with no cast that other meta values would fail.
const instant = (ms: number): string => String(Math.max(0, Math.floor(ms))).padStart(16, '0');

/** A fanout part keeps its files (and row) while its aggregate, which merges them, is still open. */
const noOpenAggregate = (eb: ExpressionBuilder<Database, 'tickets'>) =>
  eb.not(eb.exists(eb.selectFrom('tickets as agg').select('agg.id').whereRef('agg.id', '=', 'tickets.aggregate_id').where('agg.complete', '=', 0)));

/** A stored file as housekeeping sees it. */
export interface StoredFile {
  ticket: string;
  name: string;
  blob_key: string;
  /** 1 when the bytes are in the row itself (nothing to delete in the blob store), else 0. */
  in_row: number;
}

// Written out for the select (joined tables) and for RETURNING (the artifacts table alone).
const inRowSelected = sql<number>`case when artifacts.data is null then 0 else 1 end`.as('in_row');
const inRowReturned = sql<number>`case when data is null then 0 else 1 end`.as('in_row');

/** Files of complete tickets whose own expiry (`keep_until`) has passed. */
export async function expiredFiles(db: Kysely<Database>, now: number, limit: number): Promise<StoredFile[]> {
  return db
    .selectFrom('artifacts')
    .innerJoin('tickets', 'tickets.id', 'artifacts.ticket')
    .select(['artifacts.ticket', 'artifacts.name', 'artifacts.blob_key', inRowSelected])
    .where('artifacts.keep_until', '<=', now)
    .where('tickets.complete', '=', 1)
    .where(noOpenAggregate)
    .orderBy('artifacts.keep_until')
    .limit(limit)
    .execute();
}

/** Files under a `shipped` or `shippedOrExpired` rule of complete tickets that were shipped. */
export async function shippedFiles(db: Kysely<Database>, limit: number): Promise<StoredFile[]> {
  return db
    .selectFrom('artifacts')
    .innerJoin('tickets', 'tickets.id', 'artifacts.ticket')
    .select(['artifacts.ticket', 'artifacts.name', 'artifacts.blob_key', inRowSelected])
    // Literals, so that SQLite plans this once, with the partial index tickets_shipped (migration 016).
    .where('tickets.shipped', '=', sql.lit(1))
    .where('tickets.complete', '=', sql.lit(1))
    .where('artifacts.keep_rule', 'in', ['shipped', 'shippedOrExpired'])
    .where(noOpenAggregate)
    .limit(limit)
    .execute();
}

/** Files of complete tickets of projects whose `expires` date has passed, whatever their rule. */
export async function filesOfExpiredProjects(db: Kysely<Database>, now: number, limit: number): Promise<StoredFile[]> {
  return db
    .selectFrom('artifacts')
    .innerJoin('tickets', 'tickets.id', 'artifacts.ticket')
    .innerJoin('projects', (j) => j.onRef('projects.tenant', '=', 'tickets.tenant').onRef('projects.name', '=', 'tickets.project'))
    .select(['artifacts.ticket', 'artifacts.name', 'artifacts.blob_key', inRowSelected])
    .where('projects.expires', '<=', now)
    .where('tickets.complete', '=', 1)
    .limit(limit)
    .execute();
}

/**
 * Deletes exactly these file rows (same blob: a newer attempt may have replaced a row since it
 * was selected) and returns the ones this call removed.
 */
export async function deleteFiles(db: Kysely<Database>, files: readonly StoredFile[]): Promise<StoredFile[]> {
  if (files.length === 0) return [];
  return db
    .deleteFrom('artifacts')
    .where((eb) => eb.or(files.map((f) => eb.and([eb('ticket', '=', f.ticket), eb('name', '=', f.name), eb('blob_key', '=', f.blob_key)]))))
    .returning(['ticket', 'name', 'blob_key', inRowReturned])
    .execute();
}

/** Tickets whose input is past `keep_input_until` and that no worker is running right now. */
export async function expiredInputs(db: Kysely<Database>, now: number, limit: number): Promise<StoredInput[]> {
  return db
    .selectFrom('tickets')
    .select(['id', 'input_key'])
    .where('keep_input_until', '<=', now)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .orderBy('keep_input_until')
    .limit(limit)
    .execute();
}

/** A ticket's stored input as housekeeping sees it (`input_key` null for inline input). */
export interface StoredInput {
  id: string;
  input_key: string | null;
}

/** Still-kept inputs of projects whose `expires` date has passed, of tickets no worker is running. */
export async function inputsOfExpiredProjects(db: Kysely<Database>, now: number, limit: number): Promise<StoredInput[]> {
  return db
    .selectFrom('tickets')
    .innerJoin('projects', (j) => j.onRef('projects.tenant', '=', 'tickets.tenant').onRef('projects.name', '=', 'tickets.project'))
    .select(['tickets.id', 'tickets.input_key'])
    .where('projects.expires', '<=', now)
    .where('tickets.keep_input_until', 'is not', null)
    .where((eb) => eb.or([eb('tickets.lease_until', 'is', null), eb('tickets.lease_until', '<', now)]))
    .limit(limit)
    .execute();
}

/** Forgets the input of these tickets (inline bytes and blob key); returns the ids this call changed. */
export async function dropInputs(db: Kysely<Database>, ids: readonly string[], now: number): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('tickets')
    .set({ input_inline: null, input_key: null, keep_input_until: null })
    .where('id', 'in', [...ids])
    .where('keep_input_until', 'is not', null)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', now)]))
    .returning('id')
    .execute();
  return rows.map((r) => r.id);
}

/** A ticket row that housekeeping removed. */
export interface RemovedTicket {
  id: string;
  tenant: string;
  project: string;
  input_key: string | null;
}

/** Complete tickets finished before `before`, with no stored file left and no input still kept. */
export async function finishedTickets(db: Kysely<Database>, before: number, now: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('tickets')
    .select('id')
    // A literal, so that SQLite plans this once, with the partial index tickets_completed (migration 016).
    .where('complete', '=', sql.lit(1))
    .where('completed', '<=', before)
    .where((eb) => eb.or([eb('keep_input_until', 'is', null), eb('keep_input_until', '<=', now)]))
    .where(noOpenAggregate)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('artifacts').select('artifacts.ticket').whereRef('artifacts.ticket', '=', 'tickets.id'))))
    .orderBy('completed')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Deletes these ticket rows if they still qualify; returns the rows this call removed. */
export async function deleteTickets(db: Kysely<Database>, ids: readonly string[], before: number): Promise<RemovedTicket[]> {
  if (ids.length === 0) return [];
  return db
    .deleteFrom('tickets')
    .where('id', 'in', [...ids])
    .where('complete', '=', 1)
    .where('completed', '<=', before)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('artifacts').select('artifacts.ticket').whereRef('artifacts.ticket', '=', 'tickets.id'))))
    .returning(['id', 'tenant', 'project', 'input_key'])
    .execute();
}

/** Blob keys under `prefix` that a ticket's artifact rows still name (files a step committed). */
export async function artifactKeysUnder(db: Kysely<Database>, ticket: string, prefix: string): Promise<Set<string>> {
  const rows = await db.selectFrom('artifacts').select('blob_key').where('ticket', '=', ticket).execute();
  return new Set(rows.map((r) => r.blob_key).filter((k) => k.startsWith(prefix)));
}
