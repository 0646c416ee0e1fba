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

/** Decides whether a fanout of `n` tickets passes the quota; null when it does. */
export type FanoutQuota = (n: number) => AppError | null;

/**
 * The quota check of a fanout, which learns its ticket count only while splitting. Usage is
 * read up front: on SQLite the insert's transaction holds the only connection.
 */
export async function fanoutQuota(ctx: Context, tenant: string, project: string, quota: QuotaConfig | undefined, now: number): Promise<FanoutQuota> {
  const period = quotaPeriod(now);
  const used = { project: await tickets.quotaUsage(ctx.db.kysely, tenant, period, project), tenant: await tickets.quotaUsage(ctx.db.kysely, tenant, period) };
  return (n) => {
    if (quota?.ticketsPerMonth !== undefined && used.project + n > quota.ticketsPerMonth) return new AppError('quota_exceeded', `rendering quota exceeded: this fanout makes ${n} tickets; project ${tenant}/${project} has used ${used.project} of ${quota.ticketsPerMonth} in ${period}`);
    if (quota?.tenantTicketsPerMonth !== undefined && used.tenant + n > quota.tenantTicketsPerMonth) return new AppError('quota_exceeded', `rendering quota exceeded: this fanout makes ${n} tickets; tenant ${tenant} has used ${used.tenant} of ${quota.tenantTicketsPerMonth} in ${period}`);
    return null;
  };
}
