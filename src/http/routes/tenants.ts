import { Type } from '@sinclair/typebox';
import { requireOperator } from '../../auth/index.js';
import type { Context } from '../../context.js';
import * as tenantsService from '../../tenants/index.js';
import { keepUntilValues, type KeepUntil } from '../../tenants/index.js';
import { errors } from '../schemas.js';
import { principalOf, type App } from '../types.js';

// A plain string enum: one clear validation message and `enum` in OpenAPI (a union of literals gives neither).
const KeepUntilSchema = Type.Unsafe<KeepUntil>({
  type: 'string',
  enum: [...keepUntilValues],
  description: 'retention of the project\'s outputs: shipped, expired, shippedOrExpired or forever',
});

const Tenant = Type.Object({
  name: Type.String(),
  projects: Type.Integer({ description: 'number of projects' }),
  created: Type.String({ format: 'date-time' }),
  updated: Type.String({ format: 'date-time' }),
});

const Project = Type.Object({
  tenant: Type.String(),
  name: Type.String(),
  keepUntil: Type.Union([KeepUntilSchema, Type.Null()]),
  expires: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  created: Type.String({ format: 'date-time' }),
  updated: Type.String({ format: 'date-time' }),
});

const Deleted = Type.Object({ deleted: Type.String() });
const PatternQuery = Type.Object({
  pattern: Type.Optional(Type.String({ maxLength: 256, description: 'glob (`*`, `?`), or a regular expression when it starts with ^ or ends with $' })),
});
const TenantParams = Type.Object({ tenant: Type.String() });
const ProjectParams = Type.Object({ tenant: Type.String(), project: Type.String() });

/** Tenants and projects administration: every operation needs the operator token. */
export async function tenantRoutes(app: App, ctx: Context): Promise<void> {
  const json = { produces: ['application/json'] } as const;
  // Before validation, so a caller without the operator token learns nothing about the input rules.
  app.addHook('preValidation', async (req) => requireOperator(principalOf(req)));

  app.get(
    '/tenants',
    { config: json, schema: { tags: ['tenants'], operationId: 'listTenants', summary: 'List tenants', querystring: PatternQuery, response: { 200: Type.Array(Tenant), ...errors(400, 401, 403, 406) } } },
    async (req) => tenantsService.listTenants(ctx, req.query.pattern),
  );
  app.post(
    '/tenants',
    { config: json, schema: { tags: ['tenants'], operationId: 'createTenant', summary: 'Create a tenant', querystring: Type.Object({ name: Type.String() }), response: { 200: Tenant, ...errors(400, 401, 403, 406, 409) } } },
    async (req) => tenantsService.createTenant(ctx, req.query.name),
  );
  app.get(
    '/tenants/:tenant',
    { config: json, schema: { tags: ['tenants'], operationId: 'getTenant', summary: 'Get a tenant', params: TenantParams, response: { 200: Tenant, ...errors(401, 403, 404, 406) } } },
    async (req) => tenantsService.getTenant(ctx, req.params.tenant),
  );
  app.delete(
    '/tenants/:tenant',
    {
      config: json,
      schema: {
        tags: ['tenants'],
        operationId: 'deleteTenant', summary: 'Delete a tenant with its projects, users, repository files, tickets and artifacts',
        description: 'Deletes everything of the tenant at once; there is no refusal for open tickets.',
        params: TenantParams,
        response: { 200: Deleted, ...errors(401, 403, 404, 406) },
      },
    },
    async (req) => tenantsService.deleteTenant(ctx, req.params.tenant),
  );
  app.get(
    '/tenants/:tenant/projects',
    { config: json, schema: { tags: ['tenants'], operationId: 'listProjects', summary: 'List projects of a tenant', params: TenantParams, querystring: PatternQuery, response: { 200: Type.Array(Project), ...errors(400, 401, 403, 404, 406) } } },
    async (req) => tenantsService.listProjects(ctx, req.params.tenant, req.query.pattern),
  );
  app.post(
    '/tenants/:tenant/projects',
    {
      config: json,
      schema: {
        tags: ['tenants'],
        operationId: 'createProject', summary: 'Create a project',
        params: TenantParams,
        querystring: Type.Object({
          name: Type.String(),
          keepUntil: Type.Optional(KeepUntilSchema),
          expires: Type.Optional(Type.String({ format: 'date-time' })),
        }),
        response: { 200: Project, ...errors(400, 401, 403, 404, 406, 409) },
      },
    },
    async (req) => tenantsService.createProject(ctx, req.params.tenant, req.query),
  );
  app.get(
    '/tenants/:tenant/projects/:project',
    { config: json, schema: { tags: ['tenants'], operationId: 'getProject', summary: 'Get a project', params: ProjectParams, response: { 200: Project, ...errors(401, 403, 404, 406) } } },
    async (req) => tenantsService.getProject(ctx, req.params.tenant, req.params.project),
  );
  app.delete(
    '/tenants/:tenant/projects/:project',
    {
      config: json,
      schema: {
        tags: ['tenants'],
        operationId: 'deleteProject', summary: 'Delete a project with its users, repository files, tickets and artifacts',
        description: 'Deletes everything of the project at once; there is no refusal for open tickets.',
        params: ProjectParams,
        response: { 200: Deleted, ...errors(401, 403, 404, 406) },
      },
    },
    async (req) => tenantsService.deleteProject(ctx, req.params.tenant, req.params.project),
  );
}
