import { Type } from '@sinclair/typebox';
import type { Context } from '../../context.js';
import { globalStatistics, projectStatistics, statsUnits, tenantStatistics, type StatisticsParams } from '../../stats/index.js';
import { errors, ref } from '../schemas.js';
import { principalOf, type App } from '../types.js';

const count = (description: string) => Type.Integer({ minimum: 0, description });

const SummaryStatus = Type.Object(
  {
    tenant: Type.String(),
    project: Type.String(),
    unit: Type.Unsafe<string>({ type: 'string', enum: [...statsUnits], description: 'the interval type' }),
    startDate: Type.String({ format: 'date-time', description: 'interval start, inclusive (UTC)' }),
    endDate: Type.String({ format: 'date-time', description: 'interval end, exclusive (UTC)' }),
    tickets: count('tickets completed in the interval'),
    errors: count('tickets that failed for good (no redelivery left)'),
    processingMsec: count('cumulated pure processing time (transform, render, conversion), msec'),
    processingPages: count('cumulated pages created'),
    redeliveries: count('redeliveries of the tickets completed in the interval'),
    totalMsec: count('cumulated time from ticket creation to completion, msec'),
    downloadRequests: count('media assets downloaded (cache misses)'),
    downloadBytes: count('bytes of downloaded media assets'),
    downloadMsec: count('cumulated download msec, excluding cache hits; downloads may run in parallel'),
    uploadRequests: count('output uploads'),
    uploadBytes: count('bytes uploaded'),
    uploadMsec: count('cumulated upload msec'),
    cacheHits: count('media assets served from the cache'),
  },
  { $id: 'SummaryStatus' },
);

const names = (what: string) =>
  Type.Optional(Type.Array(Type.String({ maxLength: 4096 }), { maxItems: 1000, description: `${what} filter: repeat the parameter or separate names by commas` }));

const StatisticsQuery = Type.Object({
  unit: Type.Optional(Type.Unsafe<StatisticsParams['unit']>({ type: 'string', enum: [...statsUnits, ''], description: 'hour, day, month or year; empty or absent: all units' })),
  startDate: Type.Optional(Type.String({ format: 'date-time', description: 'intervals starting at or after this (inclusive)' })),
  endDate: Type.Optional(Type.String({ format: 'date-time', description: 'intervals starting before this (exclusive)' })),
});
const GlobalQuery = Type.Composite([StatisticsQuery, Type.Object({ tenant: names('tenant'), project: names('project') })]);
const TenantQuery = Type.Composite([StatisticsQuery, Type.Object({ project: names('project') })]);

/** Usage statistics: SummaryStatus intervals, globally, per tenant and per project. */
export async function statisticsRoutes(app: App, ctx: Context): Promise<void> {
  app.addSchema(SummaryStatus);
  const config = { produces: ['application/json'] } as const;
  const response = { 200: Type.Array(ref(SummaryStatus), { description: 'SummaryStatus intervals' }), ...errors(400, 401, 403, 406) };
  const tags = ['statistics'];

  // GET is the documented method. POST with the same query parameters answers the same, because
  // the contract's reference text shows a POST in its example; it stays out of the OpenAPI document.
  const hidden = <S extends { operationId: string }>(schema: S) => ({ ...schema, hide: true, operationId: `${schema.operationId}ByPost` });
  const global = { tags, operationId: 'getGlobalStatistics', summary: 'Usage of every tenant and project (operator token)', querystring: GlobalQuery, response };
  app.get('/statistics', { config, schema: global }, async (req) => globalStatistics(ctx, principalOf(req), req.query));
  app.post('/statistics', { config, schema: hidden(global) }, async (req) => globalStatistics(ctx, principalOf(req), req.query));
  const tenant = {
    tags,
    operationId: 'getTenantStatistics',
    summary: "Usage of a tenant's projects (a project admin token sees its own project)",
    params: Type.Object({ tenant: Type.String() }),
    querystring: TenantQuery,
    response,
  };
  app.get('/statistics/tenants/:tenant', { config, schema: tenant }, async (req) => tenantStatistics(ctx, principalOf(req), req.params.tenant, req.query));
  app.post('/statistics/tenants/:tenant', { config, schema: hidden(tenant) }, async (req) => tenantStatistics(ctx, principalOf(req), req.params.tenant, req.query));
  const project = {
    tags,
    operationId: 'getProjectStatistics',
    summary: 'Usage of one project (operator or project admin token)',
    params: Type.Object({ tenant: Type.String(), project: Type.String() }),
    querystring: StatisticsQuery,
    response,
  };
  app.get('/statistics/tenants/:tenant/projects/:project', { config, schema: project }, async (req) =>
    projectStatistics(ctx, principalOf(req), req.params.tenant, req.params.project, req.query),
  );
  app.post('/statistics/tenants/:tenant/projects/:project', { config, schema: hidden(project) }, async (req) =>
    projectStatistics(ctx, principalOf(req), req.params.tenant, req.params.project, req.query),
  );
}
