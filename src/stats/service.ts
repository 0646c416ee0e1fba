import { requireOperator, requireProjectAdmin, type Principal } from '../auth/index.js';
import type { Context } from '../context.js';
import { forbidden } from '../errors.js';
import { summaries, type SummaryQuery, type SummaryStatus } from './summary.js';
import type { StatsUnit } from './units.js';

/** The query parameters of the statistics endpoints, as validated by the route schema. */
export interface StatisticsParams {
  unit?: StatsUnit | '';
  startDate?: string;
  endDate?: string;
  tenant?: string[];
  project?: string[];
}

/** `a&a=b,c` style lists: repeated parameters and comma-separated values alike (names hold no commas). */
function names(values: string[] | undefined): string[] | undefined {
  return values?.flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
}

function query(p: StatisticsParams, scope: { tenants?: string[]; projects?: string[] }): SummaryQuery {
  return {
    ...(p.unit ? { unit: p.unit } : {}),
    ...(p.startDate ? { from: Date.parse(p.startDate) } : {}),
    ...(p.endDate ? { to: Date.parse(p.endDate) } : {}),
    ...(scope.tenants ? { tenants: scope.tenants } : {}),
    ...(scope.projects ? { projects: scope.projects } : {}),
  };
}

/** Both lists, or the one given; undefined when neither filters. */
function intersect(a: string[] | undefined, b: string[] | undefined): string[] | undefined {
  if (!a) return b;
  if (!b) return a;
  return a.filter((x) => b.includes(x));
}

/** GET /statistics: every tenant and project, operators only. */
export async function globalStatistics(ctx: Context, principal: Principal, p: StatisticsParams): Promise<SummaryStatus[]> {
  requireOperator(principal);
  return summaries(ctx, query(p, { tenants: names(p.tenant), projects: names(p.project) }));
}

/**
 * GET /statistics/tenants/{tenant}: operators see every project of the tenant; a project
 * administrator of that tenant sees only its own project (the token is bound to one).
 */
export async function tenantStatistics(ctx: Context, principal: Principal, tenant: string, p: StatisticsParams): Promise<SummaryStatus[]> {
  let own: string[] | undefined;
  if (!principal.operator) {
    if (principal.tenant !== tenant || principal.scope !== 'admin') throw forbidden(`statistics of tenant ${tenant} need the operator token or an admin token of that tenant`);
    own = [principal.project];
  }
  return summaries(ctx, query(p, { tenants: [tenant], projects: intersect(own, names(p.project)) }));
}

/** GET /statistics/tenants/{tenant}/projects/{project}: operators, or an admin token of that project. */
export async function projectStatistics(ctx: Context, principal: Principal, tenant: string, project: string, p: StatisticsParams): Promise<SummaryStatus[]> {
  requireProjectAdmin(principal, tenant, project);
  return summaries(ctx, query(p, { tenants: [tenant], projects: [project] }));
}
