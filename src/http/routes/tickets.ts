import { Type } from '@sinclair/typebox';
import type { Static } from '@sinclair/typebox';
import { requireProject, type Principal } from '../../auth/index.js';
import type { Context } from '../../context.js';
import { AppError, notFound } from '../../errors.js';
import { tickets } from '../../store/index.js';
import { assertProjectExists } from '../../tenants/index.js';
import { artifactSize, artifactZip, findStoredFile, isTicketId, openArtifact, outputOfType, statusView, TicketStatusViewSchema } from '../../tickets/index.js';
import { negotiate } from '../negotiate.js';
import { parseRange } from '../range.js';
import { binaryResponse, errors, ref } from '../schemas.js';
import { principalOf, type App } from '../types.js';
import { ticketHistoryRoutes } from './ticket-history.js';

const ProjectParams = Type.Object({ tenant: Type.String(), project: Type.String() });
const TicketParams = Type.Object({ tenant: Type.String(), project: Type.String(), ticket: Type.String() });

const artifactTypes = ['application/pdf', 'application/vnd.openxmlformats-officedocument.presentationml.presentation', 'application/zip', 'image/png', 'image/jpeg'];

/** Content types of outputs by extension, for the artifact endpoint (content negotiation needs the real types). */
const typesByExtension: Record<string, string> = {
  pdf: 'application/pdf',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  png: 'image/png',
  jpg: 'image/jpeg',
  zip: 'application/zip',
};
/** What a storage download can answer: the contract's PDF, octet-stream for every other extension. */
const storageTypes = ['application/pdf', 'application/octet-stream'];
const typeOfName = (name: string): string | undefined => typesByExtension[name.slice(name.lastIndexOf('.') + 1)];

type ProjectReq = { principal: Principal | null; params: Static<typeof ProjectParams> };

/** Token for this project, and the project exists (in that order, so nothing leaks to other tenants). */
async function authorize(ctx: Context, req: ProjectReq): Promise<void> {
  requireProject(principalOf(req), req.params.tenant, req.params.project);
  await assertProjectExists(ctx, req.params.tenant, req.params.project);
}

async function loadTicket(ctx: Context, req: ProjectReq & { params: Static<typeof TicketParams> }) {
  await authorize(ctx, req);
  const { tenant, project, ticket } = req.params;
  const row = isTicketId(ticket) ? await tickets.findProjectTicket(ctx.db.kysely, tenant, project, ticket) : undefined;
  if (!row) throw notFound(`ticket ${ticket}`);
  return row;
}

/** Open tickets, ticket status, artifacts and storage downloads. */
export async function ticketRoutes(app: App, ctx: Context): Promise<void> {
  app.addSchema(TicketStatusViewSchema);
  const json = { produces: ['application/json'] } as const;

  app.get(
    '/tenants/:tenant/projects/:project/tickets',
    { config: json, schema: { tags: ['tickets'], operationId: 'listOpenTickets', summary: 'Ids of the open tickets', params: ProjectParams, response: { 200: Type.Array(Type.String()), ...errors(401, 403, 404, 406) } } },
    async (req) => {
      await authorize(ctx, req);
      return tickets.openTicketIds(ctx.db.kysely, req.params.tenant, req.params.project);
    },
  );

  app.get(
    '/tenants/:tenant/projects/:project/tickets/:ticket/status',
    {
      config: json,
      schema: { tags: ['tickets'], operationId: 'getTicketStatus', summary: 'Status of a ticket', params: TicketParams, response: { 200: ref(TicketStatusViewSchema), ...errors(401, 403, 404, 406) } },
    },
    async (req) => statusView(await loadTicket(ctx, req)),
  );

  app.get(
    '/tenants/:tenant/projects/:project/tickets/:ticket/artifact',
    {
      schema: {
        tags: ['tickets'],
        operationId: 'getTicketArtifact',
        summary: 'Main artifact by Accept (application/pdf, the presentation type, image/png or image/jpeg after convert) or all artifacts (application/zip; a pageset ZIP when that is the main artifact); does not mark shipped',
        params: TicketParams,
        querystring: Type.Object({ tenant: Type.Optional(Type.String()), project: Type.Optional(Type.String()), ticket: Type.Optional(Type.String()) }),
        response: { 200: binaryResponse('the artifact (Accept chooses)', artifactTypes), ...errors(401, 403, 404, 406) },
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

  app.get(
    '/tenants/:tenant/projects/:project/storage/:filename',
    {
      schema: {
        tags: ['tickets'],
        operationId: 'downloadStoredFile',
        summary: 'Download a stored file (`<ticket>.pdf`, …) as application/pdf for `pdf`, application/octet-stream otherwise, whole or one `Range: bytes=a-b`; a complete download of the output marks the ticket shipped unless shipped=false',
        params: Type.Object({ tenant: Type.String(), project: Type.String(), filename: Type.String() }),
        querystring: Type.Object({ shipped: Type.Boolean({ default: true }) }),
        response: {
          200: binaryResponse('the file: application/pdf for a PDF, application/octet-stream for every other extension', storageTypes),
          206: binaryResponse('the bytes of the requested range (`Content-Range: bytes a-b/length`)', storageTypes),
          ...errors(400, 401, 403, 404, 416),
        },
      },
    },
    async (req, reply) => {
      await authorize(ctx, req);
      const { row, ticket } = await findStoredFile(ctx, req.params.tenant, req.params.project, req.params.filename);
      const size = await artifactSize(ctx, row);
      const asked = parseRange(req.headers.range, size);
      if (asked.kind === 'unsatisfiable') {
        throw new AppError('range_not_satisfiable', `range ${req.headers.range} names no byte of ${row.name} (${size} bytes)`, { headers: { 'content-range': `bytes */${size}`, 'accept-ranges': 'bytes' } });
      }
      const range = asked.kind === 'part' ? asked.range : { start: 0, end: size - 1 };
      const stream = await openArtifact(ctx, row, asked.kind === 'part' ? range : undefined);
      // Only a GET of every byte ships the output; a part (a resumed download, a viewer's peek) or a HEAD does not.
      const whole = range.start === 0 && range.end === size - 1;
      if (req.query.shipped !== false && row.kind === 'output' && whole && req.method === 'GET') {
        reply.raw.once('finish', () => void tickets.markShipped(ctx.db.kysely, ticket.id, ctx.now()).catch(() => {}));
      }
      // The contract: application/pdf for `pdf`, application/octet-stream for every other extension.
      const type = row.name.endsWith('.pdf') ? 'application/pdf' : 'application/octet-stream';
      reply.type(type).header('content-disposition', `attachment; filename="${row.name}"`).header('accept-ranges', 'bytes').header('content-length', String(range.end - range.start + 1));
      if (asked.kind === 'part') reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
      return reply.send(stream);
    },
  );

  await ticketHistoryRoutes(app, ctx, { authorize: (req) => authorize(ctx, req), loadTicket: (req) => loadTicket(ctx, req) });
}
