import type { Context } from '../context.js';
import { stats, type StatsRow } from '../store/index.js';
import { intervalStart, statsUnits } from './units.js';

/** The counters of a SummaryStatus, as increments. */
export interface UsageCounters {
  /** Tickets completed. */
  tickets: number;
  /** Tickets that failed for good (counted once, when no redelivery is left). */
  errors: number;
  /** Pure processing time (transform, render, conversion) in msec. */
  processingMsec: number;
  /** Pages created. */
  processingPages: number;
  /** Redeliveries of completed tickets. */
  redeliveries: number;
  /** Creation to completion, in msec, of completed tickets. */
  totalMsec: number;
  /** Media assets downloaded (cache misses). */
  downloadRequests: number;
  /** Bytes of downloaded media assets. */
  downloadBytes: number;
  /** Download time in msec, excluding cache hits. */
  downloadMsec: number;
  /** Uploads of output (upload webhook, asset management). */
  uploadRequests: number;
  /** Bytes uploaded. */
  uploadBytes: number;
  /** Upload time in msec. */
  uploadMsec: number;
  /** Media assets served from the cache. */
  cacheHits: number;
}

const columns: Record<keyof UsageCounters, (typeof stats.statsCounters)[number]> = {
  tickets: 'tickets',
  errors: 'errors',
  processingMsec: 'processing_msec',
  processingPages: 'processing_pages',
  redeliveries: 'redeliveries',
  totalMsec: 'total_msec',
  downloadRequests: 'download_requests',
  downloadBytes: 'download_bytes',
  downloadMsec: 'download_msec',
  uploadRequests: 'upload_requests',
  uploadBytes: 'upload_bytes',
  uploadMsec: 'upload_msec',
  cacheHits: 'cache_hits',
};

/** The stats rows (one per unit) that add `counters` at time `at`; none when every counter is 0. */
export function usageRows(tenant: string, project: string, at: number, counters: Partial<UsageCounters>): StatsRow[] {
  const values = Object.fromEntries(stats.statsCounters.map((c) => [c, 0])) as Record<(typeof stats.statsCounters)[number], number>;
  let any = false;
  for (const [key, value] of Object.entries(counters) as [keyof UsageCounters, number | undefined][]) {
    if (!value) continue;
    if (!Number.isFinite(value)) throw new Error(`usage counter ${key} is not a number: ${value}`);
    values[columns[key]] += Math.round(value);
    any = true;
  }
  if (!any) return [];
  return statsUnits.map((unit) => ({ tenant, project, unit, start: intervalStart(unit, at), ...values }));
}

/**
 * Adds usage of a tenant's project at time `at` (epoch ms) to the hour, day, month and year
 * intervals holding it. For work outside a step commit: media downloads, cache hits, uploads.
 */
export async function recordUsage(ctx: Context, tenant: string, project: string, at: number, counters: Partial<UsageCounters>): Promise<void> {
  await stats.addUsage(ctx.db.kysely, usageRows(tenant, project, at, counters));
}

/** Converts a stats row to the API's counter names. */
export function countersOf(row: StatsRow): UsageCounters {
  return Object.fromEntries(Object.entries(columns).map(([key, column]) => [key, Number(row[column])])) as unknown as UsageCounters;
}
