import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { requireProject } from '../../auth/index.js';
import type { Context } from '../../context.js';
import { notFound } from '../../errors.js';
import { tickets } from '../../store/index.js';
import { assertProjectExists } from '../../tenants/index.js';
import { artifactZip, findStoredFile, isTicketId, openArtifact, outputOfType, statusView } from '../../tickets/index.js';
import { negotiate } from '../negotiate.js';
import { errors } from '../schemas.js';
import { principalOf } from '../types.js';
import { ticketHistoryRoutes } from './ticket-history.js';

const ProjectParams = Type.Object({ tenant: Type.String(), project: Type.String() });
const TicketParams = Type.Object({ tenant: Type.String(), project: Type.String(), ticket: Type.String() });

const StatusView = Type.Object(
  {
    complete: Type.Boolean(),
    tenant: Type.String(),
    project: Type.String(),
    ticket: Type.String(),
    status: Type.Union([Type.String(), Type.Null()], { description: '`<step>.<outcome>` of the last finished step' }),
    next: Type.Union([Type.String(), Type.Null()], { description: 'step due next; null when complete' }),
    messages: Type.Array(Type.String()),
    created: Type.String({ format: 'date-time' }),
    updated: Type.String({ format: 'date-time' }),
    redeliveries: Type.Integer(),
    processingMsecs: Type.Integer(),
    processingPages: Type.Integer(),
    errorCode: Type.Union([Type.String(), Type.Null()]),
    errorMessage: Type.Union([Type.String(), Type.Null()]),
    foreignKey: Type.Union([Type.String(), Type.Null()]),
    outputName: Type.Union([Type.String(), Type.Null()]),
    shipped: Type.Boolean(),
    aggregate: Type.Union([Type.String(), Type.Null()], { description: 'fanout part: id of the aggregate ticket that merges it' }),
  },
  { $id: 'TicketStatusView' },
);

const artifactTypes = ['application/pdf', 'application/vnd.openxmlformats-officedocument.presentationml.presentation', 'application/zip', 'image/png', 'image/jpeg'];

/** Content types of stored files by extension (the contract names pdf; beyond it, the other outputs get their own types rather than octet-stream). */
const typesByExtension: Record<string, string> = {
  pdf: 'application/pdf',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  png: 'image/png',
  jpg: 'image/jpeg',
  zip: 'application/zip',
};
const typeOfName = (name: string): string | undefined => typesByExtension[name.slice(name.lastIndexOf('.') + 1)];

type ProjectReq = FastifyRequest<{ Params: { tenant: string; project: string } }>;

/** Token for this project, and the project exists (in that order, so nothing leaks to other tenants). */
async function authorize(ctx: Context, req: ProjectReq): Promise<void> {
  requireProject(principalOf(req), req.params.tenant, req.params.project);
  await assertProjectExists(ctx, req.params.tenant, req.params.project);
}

async function loadTicket(ctx: Context, req: FastifyRequest<{ Params: { tenant: string; project: string; ticket: string } }>) {
  await authorize(ctx, req);
  const { tenant, project, ticket } = req.params;
  const row = isTicketId(ticket) ? await tickets.findProjectTicket(ctx.db.kysely, tenant, project, ticket) : undefined;
  if (!row) throw notFound(`ticket ${ticket}`);
  return row;
}

/** Open tickets, ticket status, artifacts and storage downloads. */
export async function ticketRoutes(app: FastifyInstance, ctx: Context): Promise<void> {
  app.addSchema(StatusView);
  const json = { produces: ['application/json'] } as const;

  app.get<{ Params: { tenant: string; project: string } }>(
    '/tenants/:tenant/projects/:project/tickets',
    { config: json, schema: { tags: ['tickets'], summary: 'Ids of the open tickets', params: ProjectParams, response: { 200: Type.Array(Type.String()), ...errors(401, 403, 404, 406) } } },
    async (req) => {
      await authorize(ctx, req);
      return tickets.openTicketIds(ctx.db.kysely, req.params.tenant, req.params.project);
    },
  );

  app.get<{ Params: { tenant: string; project: string; ticket: string } }>(
    '/tenants/:tenant/projects/:project/tickets/:ticket/status',
    { config: json, schema: { tags: ['tickets'], summary: 'Status of a ticket', params: TicketParams, response: { 200: Type.Ref('TicketStatusView'), ...errors(401, 403, 404, 406) } } },
    async (req) => statusView(await loadTicket(ctx, req)),
  );

  app.get<{ Params: { tenant: string; project: string; ticket: string } }>(
    '/tenants/:tenant/projects/:project/tickets/:ticket/artifact',
    {
      schema: {
        tags: ['tickets'],
        summary: 'Main artifact by Accept (application/pdf, the presentation type, image/png or image/jpeg after convert) or all artifacts (application/zip; a pageset ZIP when that is the main artifact); does not mark shipped',
        params: TicketParams,
        querystring: Type.Object({ tenant: Type.Optional(Type.String()), project: Type.Optional(Type.String()), ticket: Type.Optional(Type.String()) }),
        response: { 200: Type.String({ description: 'the artifact bytes' }), ...errors(401, 403, 404, 406) },
      },
    },
    async (req, reply) => {
      negotiate(req, artifactTypes);
      const row = await loadTicket(ctx, req);
      // A wildcard Accept gets the main artifact: its type goes first. A pageset's ZIP is the main artifact itself.
      const mainType = row.output_name ? typeOfName(row.output_name) : undefined;
      const accepted = negotiate(req, mainType ? [mainType, ...artifactTypes.filter((t) => t !== mainType)] : artifactTypes);
      if (accepted === 'application/zip' && mainType !== 'application/zip') {
        return reply.type('application/zip').header('content-disposition', `attachment; filename="${row.id}.zip"`).send(await artifactZip(ctx, row));
      }
      const artifact = await outputOfType(ctx, row, accepted);
      return reply.type(artifact.content_type).header('content-disposition', `attachment; filename="${artifact.name}"`).send(await openArtifact(ctx, artifact));
    },
  );

  app.get<{ Params: { tenant: string; project: string; filename: string }; Querystring: { shipped?: boolean } }>(
    '/tenants/:tenant/projects/:project/storage/:filename',
    {
      schema: {
        tags: ['tickets'],
        summary: 'Download a stored file (`<ticket>.pdf`, …); marks the ticket shipped unless shipped=false',
        params: Type.Object({ tenant: Type.String(), project: Type.String(), filename: Type.String() }),
        querystring: Type.Object({ shipped: Type.Boolean({ default: true }) }),
        response: { 200: Type.String({ description: 'the file bytes' }), ...errors(400, 401, 403, 404) },
      },
    },
    async (req, reply) => {
      await authorize(ctx, req);
      const { row, ticket } = await findStoredFile(ctx, req.params.tenant, req.params.project, req.params.filename);
      const stream = await openArtifact(ctx, row);
      if (req.query.shipped !== false && row.kind === 'output') {
        reply.raw.once('finish', () => void tickets.markShipped(ctx.db.kysely, ticket.id, ctx.now()).catch(() => {}));
      }
      const type = typeOfName(row.name) ?? 'application/octet-stream';
      return reply.type(type).header('content-disposition', `attachment; filename="${row.name}"`).send(stream);
    },
  );

  await ticketHistoryRoutes(app, ctx, { authorize: (req) => authorize(ctx, req), loadTicket: (req) => loadTicket(ctx, req) });
}
