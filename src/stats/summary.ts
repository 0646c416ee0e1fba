import type { Context } from '../context.js';
import { stats, type StatsRow } from '../store/index.js';
import { intervalEnd, statsUnits, type StatsUnit } from './units.js';
import { countersOf, type UsageCounters } from './usage.js';

/** One SummaryStatus: a tenant's project's counters over one interval. */
export interface SummaryStatus extends UsageCounters {
  tenant: string;
  project: string;
  unit: StatsUnit;
  /** Interval start, inclusive (ISO 8601, UTC). */
  startDate: string;
  /** Interval end, exclusive (ISO 8601, UTC). */
  endDate: string;
}

/** What a statistics request asks for; absent fields do not filter. */
export interface SummaryQuery {
  /** One unit; absent or empty: all four. */
  unit?: StatsUnit | '';
  /** Intervals starting at or after this (epoch ms). */
  from?: number;
  /** Intervals starting before this (epoch ms). */
  to?: number;
  tenants?: readonly string[];
  projects?: readonly string[];
}

const rank = (unit: string): number => statsUnits.indexOf(unit as StatsUnit);
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

// In code rather than SQL: the database's collation may order names differently.
function byTenantProjectUnitStart(a: StatsRow, b: StatsRow): number {
  return cmp(a.tenant, b.tenant) || cmp(a.project, b.project) || rank(a.unit) - rank(b.unit) || a.start - b.start;
}

function present(row: StatsRow): SummaryStatus {
  const unit = row.unit as StatsUnit;
  return {
    tenant: row.tenant,
    project: row.project,
    unit,
    startDate: new Date(row.start).toISOString(),
    endDate: new Date(intervalEnd(unit, row.start)).toISOString(),
    ...countersOf(row),
  };
}

/** The intervals matching a query, by tenant, project, unit (hour first) and start. */
export async function summaries(ctx: Context, q: SummaryQuery): Promise<SummaryStatus[]> {
  const rows = await stats.selectUsage(ctx.db.kysely, {
    ...(q.unit ? { units: [q.unit] } : {}),
    ...(q.from !== undefined ? { from: q.from } : {}),
    ...(q.to !== undefined ? { to: q.to } : {}),
    ...(q.tenants ? { tenants: q.tenants } : {}),
    ...(q.projects ? { projects: q.projects } : {}),
  });
  return rows.sort(byTenantProjectUnitStart).map(present);
}
