import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { tickets } from '../store/index.js';

/** The quota period of a moment: its UTC calendar month, `YYYY-MM`. */
export function quotaPeriod(now: number): string {
  return new Date(now).toISOString().slice(0, 7);
}

interface QuotaConfig {
  ticketsPerMonth?: number;
  tenantTicketsPerMonth?: number;
}

/**
 * Refuses with 402 when `adding` more tickets would pass the project's `quota.ticketsPerMonth`
 * or the tenant's `quota.tenantTicketsPerMonth` (restapi/config.ion) this month.
 */
export async function checkQuota(ctx: Context, tenant: string, project: string, quota: QuotaConfig | undefined, adding: number): Promise<void> {
  if (!quota) return;
  const period = quotaPeriod(ctx.now());
  if (quota.ticketsPerMonth !== undefined) {
    const used = await tickets.quotaUsage(ctx.db.kysely, tenant, period, project);
    if (used + adding > quota.ticketsPerMonth) {
      throw new AppError('quota_exceeded', `rendering quota exceeded: project ${tenant}/${project} has used ${used} of ${quota.ticketsPerMonth} tickets in ${period}`);
    }
  }
  if (quota.tenantTicketsPerMonth !== undefined) {
    const used = await tickets.quotaUsage(ctx.db.kysely, tenant, period);
    if (used + adding > quota.tenantTicketsPerMonth) {
      throw new AppError('quota_exceeded', `rendering quota exceeded: tenant ${tenant} has used ${used} of ${quota.tenantTicketsPerMonth} tickets in ${period}`);
    }
  }
}
