import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Context } from '../../context.js';
import type { TicketRow } from '../../store/index.js';
import { HISTORY_DEFAULT_LIMIT, storedInput, storedInputType, ticketHistory, ticketTimeline, type HistoryQuery } from '../../tickets/index.js';
import { negotiate } from '../negotiate.js';
import { errors } from '../schemas.js';

type ProjectReq = FastifyRequest<{ Params: { tenant: string; project: string } }>;
type TicketReq = FastifyRequest<{ Params: { tenant: string; project: string; ticket: string } }>;

const ProjectParams = Type.Object({ tenant: Type.String(), project: Type.String() });
const TicketParams = Type.Object({ tenant: Type.String(), project: Type.String(), ticket: Type.String() });

const HistoryQuerySchema = Type.Object({
  status: Type.Optional(
    Type.String({
      pattern: '^[a-z]{1,32}(\\.[a-z]{1,32})?$',
      description: '`open` (not complete), `complete`, an outcome (`failed`: any `<step>.failed`; `succeeded`) or an exact status (`renderpdf.failed`)',
    }),
  ),
  step: Type.Optional(Type.String({ pattern: '^[a-z]{1,32}$', description: 'tickets whose next step or last finished step is this one (`renderpdf`, `convert`, `upload`, …)' })),
  foreignKey: Type.Optional(Type.String({ maxLength: 256, description: 'exactly this foreignKey' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: HISTORY_DEFAULT_LIMIT, description: `tickets per page, 1–200 (default ${HISTORY_DEFAULT_LIMIT})` })),
  cursor: Type.Optional(Type.String({ maxLength: 200, pattern: '^[A-Za-z0-9_-]*$', description: '`nextCursor` of the previous page' })),
});

const HistoryPage = Type.Object({
  tickets: Type.Array(Type.Ref('TicketStatusView'), { description: 'newest first (by creation)' }),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'cursor of the next (older) page; null on the last page' }),
});

const Timeline = Type.Object({
  steps: Type.Array(
    Type.Object({
      step: Type.String({ description: 'renderpdf, renderpptx, aggregate, convert, upload, callback or error' }),
      attempt: Type.Integer({ minimum: 1, description: "1-based count of this step's attempts; a redelivery is the next attempt" }),
      outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('failed'), Type.Literal('redelivered'), Type.Literal('running')], {
        description: '`redelivered`: the attempt never finished (its worker stopped or lost the lease) and another attempt took over',
      }),
      startedAt: Type.String({ format: 'date-time' }),
      endedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      durationMs: Type.Union([Type.Integer(), Type.Null()]),
      errorCode: Type.Union([Type.String(), Type.Null()]),
    }),
    { description: 'oldest first' },
  ),
});

const inputTypes = ['application/xml', 'application/json', 'application/zip'];
const InputContent = {
  description: 'the input as stored: application/xml, application/json or application/zip (a fanout part: its XML)',
  content: Object.fromEntries(inputTypes.map((t) => [t, { schema: { type: 'string', format: 'binary' } }])),
};

/**
 * Ticket history, a ticket's step timeline and its stored input (beyond the contract, for the
 * Studio and any other client). `authorize` and `loadTicket` are the ticket routes' own checks.
 */
export async function ticketHistoryRoutes(
  app: FastifyInstance,
  ctx: Context,
  checks: { authorize: (req: ProjectReq) => Promise<void>; loadTicket: (req: TicketReq) => Promise<TicketRow> },
): Promise<void> {
  const json = { produces: ['application/json'] } as const;
  const tags = ['tickets'];

  app.get<{ Params: { tenant: string; project: string }; Querystring: HistoryQuery }>(
    '/tenants/:tenant/projects/:project/ticket-history',
    {
      config: json,
      schema: {
        tags,
        summary: 'Open and completed tickets of the project still held (ticket row retention), newest first, paged',
        params: ProjectParams,
        querystring: HistoryQuerySchema,
        response: { 200: HistoryPage, ...errors(400, 401, 403, 404, 406) },
      },
    },
    async (req) => {
      await checks.authorize(req);
      return ticketHistory(ctx, req.params.tenant, req.params.project, req.query);
    },
  );

  app.get<{ Params: { tenant: string; project: string; ticket: string } }>(
    '/tenants/:tenant/projects/:project/tickets/:ticket/timeline',
    { config: json, schema: { tags, summary: "The ticket's step attempts with start, end, outcome and duration", params: TicketParams, response: { 200: Timeline, ...errors(401, 403, 404, 406) } } },
    async (req) => ({ steps: await ticketTimeline(ctx, await checks.loadTicket(req)) }),
  );

  app.get<{ Params: { tenant: string; project: string; ticket: string } }>(
    '/tenants/:tenant/projects/:project/tickets/:ticket/input',
    { schema: { tags, summary: 'The stored input of the ticket; 404 once retention dropped it', params: TicketParams, response: { 200: InputContent, ...errors(401, 403, 404, 406) } } },
    async (req, reply) => {
      const row = await checks.loadTicket(req);
      negotiate(req, [storedInputType(row), 'application/octet-stream']);
      const input = await storedInput(ctx, row);
      return reply.type(input.contentType).header('content-disposition', `attachment; filename="${input.name}"`).header('x-content-type-options', 'nosniff').send(input.data);
    },
  );
}
