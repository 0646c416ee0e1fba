import { sql, type Kysely, type Selectable } from 'kysely';
import { Prepared, rowSlots } from './prepared.js';
import type { Database, StatsTable } from './schema.js';

export type StatsRow = Selectable<StatsTable>;

/** The counter columns of the stats table. */
export const statsCounters = [
  'tickets',
  'errors',
  'processing_msec',
  'processing_pages',
  'redeliveries',
  'total_msec',
  'download_requests',
  'download_bytes',
  'download_msec',
  'upload_requests',
  'upload_bytes',
  'upload_msec',
  'cache_hits',
] as const satisfies readonly (keyof StatsTable)[];

export const statsColumns = ['tenant', 'project', 'unit', 'start', ...statsCounters] as const satisfies readonly (keyof StatsTable)[];

/** Counter rows added to their interval rows; the shape is their number. */
const usageUpsert = new Prepared<{ rows: readonly StatsRow[] }, unknown>((db, v, shape) => {
  const increments = Object.fromEntries(statsCounters.map((c) => [c, sql<number>`${sql.ref(`stats.${c}`)} + ${sql.ref(`excluded.${c}`)}`]));
  const rows = rowSlots<StatsRow, typeof v>(v, 'rows', Number(shape), statsColumns);
  return db
    .insertInto('stats')
    .values(rows)
    .onConflict((oc) => oc.columns(['tenant', 'project', 'unit', 'start']).doUpdateSet(increments));
});

/**
 * Adds counters to their interval rows, creating rows on first use. Rows are upserted in the
 * order given, so concurrent writers of one project lock them in the same order. `root` is the
 * database `db` is a transaction of, which keeps the statement compiled.
 */
export async function addUsage(db: Kysely<Database>, rows: readonly StatsRow[], root: Kysely<Database> = db): Promise<void> {
  if (rows.length === 0) return;
  await usageUpsert.execute(root, db, { rows }, String(rows.length));
}

/** Filter of a statistics query; absent fields do not filter. */
export interface StatsFilter {
  units?: readonly string[];
  /** Interval starts at or after this (epoch ms). */
  from?: number;
  /** Interval starts before this (epoch ms). */
  to?: number;
  tenants?: readonly string[];
  projects?: readonly string[];
}

/** Interval rows matching a filter, by tenant, project and start. */
export async function selectUsage(db: Kysely<Database>, filter: StatsFilter): Promise<StatsRow[]> {
  // An empty list matches nothing (and `IN ()` is not valid SQL).
  if ([filter.units, filter.tenants, filter.projects].some((list) => list?.length === 0)) return [];
  let q = db.selectFrom('stats').selectAll();
  if (filter.units) q = q.where('unit', 'in', [...filter.units]);
  if (filter.from !== undefined) q = q.where('start', '>=', filter.from);
  if (filter.to !== undefined) q = q.where('start', '<', filter.to);
  if (filter.tenants) q = q.where('tenant', 'in', [...filter.tenants]);
  if (filter.projects) q = q.where('project', 'in', [...filter.projects]);
  return q.orderBy('tenant').orderBy('project').orderBy('start').execute();
}
