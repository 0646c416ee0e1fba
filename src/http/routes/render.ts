import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requireProject } from '../../auth/index.js';
import type { Context } from '../../context.js';
import { AppError } from '../../errors.js';
import { intake, mainArtifact, openArtifact, waitForTicket, type RenderQuery } from '../../tickets/index.js';
import { tickets } from '../../store/index.js';
import { contentType, negotiate } from '../negotiate.js';
import { errors } from '../schemas.js';
import { principalOf } from '../types.js';

const xsltName = { pattern: '^\\w+\\.xslt$', description: 'XSLT file name in transform/xslt/' };
export const RenderQuerySchema = Type.Object({
  callback: Type.Optional(Type.String({ maxLength: 4096, description: 'callback URL pattern(s); `{location}`, `{ticket}`' })),
  error: Type.Optional(Type.String({ maxLength: 4096, description: 'error URL pattern(s); `{errorCode}`, `{errorMessage}`, `{ticket}`' })),
  upload: Type.Optional(Type.String({ maxLength: 4096, description: 'upload URL pattern(s); `{ticket}`' })),
  transform: Type.Optional(Type.String(xsltName)),
  transformBefore: Type.Optional(Type.String(xsltName)),
  documentTemplate: Type.Optional(Type.String({ pattern: '^[\\w.-]{1,100}$', default: undefined, description: 'template name (default `default`)' })),
  foreignKey: Type.Optional(Type.String({ maxLength: 256 })),
  profile: Type.Optional(Type.String({ pattern: '^[\\w-]+(,[\\w-]+)*$', maxLength: 512, description: 'profile name(s), comma-separated' })),
  customParams: Type.Optional(Type.String({ maxLength: 8192, description: 'percent-encoded query-style custom parameters' })),
  custom: Type.Optional(Type.Array(Type.String({ maxLength: 4096, description: '<key>:<value>' }), { maxItems: 100 })),
  timeToWait: Type.Optional(Type.Integer({ minimum: 6000, maximum: 1200000, description: 'synchronous mode: wait up to this many msec' })),
  convert: Type.Optional(Type.String({ maxLength: 256, description: 'PDF-to-image conversion (matrix style)' })),
});

export const RenderResult = Type.Object(
  {
    tickets: Type.Array(Type.Object({ id: Type.String() })),
    aggregate: Type.Optional(Type.Object({ id: Type.String() }, { description: 'the aggregate ticket of a fanout with aggregate.enabled' })),
  },
  { $id: 'RenderResult' },
);

const outputTypes = { pdf: 'application/pdf', pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation' } as const;
/** What renderpdf answers in synchronous mode with `convert`: one image, or a ZIP for a pageset. */
const convertTypes = ['image/png', 'image/jpeg', 'application/zip'];

/** Synchronous mode: 406 unless Accept allows the type this request will produce. */
function requireAccepted(req: FastifyRequest, type: string, converted: boolean): void {
  try {
    negotiate(req, [type]);
  } catch {
    throw new AppError('not_acceptable', `synchronous mode answers this request with ${type}${converted ? ' (convert)' : ''}; Accept "${req.headers.accept ?? ''}" does not allow it`);
  }
}

/** POST …/renderpdf (and the discouraged POST …/render?outputType=pdf). */
export async function renderRoutes(app: FastifyInstance, ctx: Context): Promise<void> {
  app.addSchema(RenderResult);
  const schema = (summary: string, extraQuery = {}) => ({
    tags: ['rendering'],
    summary,
    params: Type.Object({ tenant: Type.String(), project: Type.String() }),
    querystring: Type.Composite([RenderQuerySchema, Type.Object(extraQuery)]),
    consumes: ['application/xml', 'application/json', 'application/zip'],
    response: {
      200: Type.String({ description: 'synchronous mode: the output document (with convert: image/png, image/jpeg, or application/zip for a pageset)', contentMediaType: 'application/pdf' }),
      202: Type.Ref('RenderResult'),
      408: Type.Ref('RenderResult'),
      ...errors(400, 401, 403, 404, 405, 406, 413, 415, 500, 504),
    },
  });

  app.post<{ Params: { tenant: string; project: string }; Querystring: RenderQuery }>(
    '/tenants/:tenant/projects/:project/renderpdf',
    { schema: schema('Render XML, JSON or ZIP data to PDF') },
    async (req, reply) => render(ctx, req, reply, 'pdf'),
  );
  app.post<{ Params: { tenant: string; project: string }; Querystring: RenderQuery }>(
    '/tenants/:tenant/projects/:project/renderpptx',
    { schema: schema('Render XML (presentation format), JSON or ZIP data to a PowerPoint deck from a master .pptx') },
    async (req, reply) => render(ctx, req, reply, 'pptx'),
  );
  app.post<{ Params: { tenant: string; project: string }; Querystring: RenderQuery & { outputType?: string } }>(
    '/tenants/:tenant/projects/:project/render',
    { schema: { ...schema('Render (discouraged; use renderpdf)', { outputType: Type.Optional(Type.Literal('pdf')) }), deprecated: true } },
    async (req, reply) => render(ctx, req, reply, 'pdf'),
  );
}

async function render(
  ctx: Context,
  req: FastifyRequest<{ Params: { tenant: string; project: string }; Querystring: RenderQuery }>,
  reply: FastifyReply,
  target: 'pdf' | 'pptx',
): Promise<unknown> {
  const { tenant, project } = req.params;
  requireProject(principalOf(req), tenant, project);
  const outputType = outputTypes[target];
  // With convert the synchronous answer is an image or a ZIP; intake reports which, before storing.
  const offered = target === 'pdf' ? [outputType, ...convertTypes] : [outputType];
  const sync = req.query.timeToWait !== undefined && negotiate(req, [...offered, 'application/json']) !== 'application/json';
  if (!sync) {
    try {
      negotiate(req, ['application/json']);
    } catch (err) {
      const asked = offered.find((t) => req.headers.accept?.includes(t));
      if (asked) throw new AppError('not_acceptable', `Accept ${asked} asks for synchronous mode, which needs timeToWait (6000-1200000 msec)`);
      throw err;
    }
  }
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const checkOutput = sync ? (converted: string | undefined) => requireAccepted(req, converted ?? outputType, converted !== undefined) : undefined;
  const stored = await intake(ctx, principalOf(req), { tenant, project, target, query: req.query, contentType: contentType(req), body, ...(checkOutput ? { checkOutput } : {}) });
  const result = { tickets: stored.tickets.map((id) => ({ id })), ...(stored.aggregate ? { aggregate: { id: stored.aggregate } } : {}) };
  // Synchronous mode returns one document: the aggregate's, or the only ticket's. Several
  // fanout parts without an aggregate have no single result, so they are answered as async.
  const single = stored.aggregate ?? (stored.tickets.length === 1 ? stored.tickets[0]! : null);
  if (!sync || !single) return reply.code(202).send(result);

  const done = await waitForTicket(ctx, ctx.notifier, single, req.query.timeToWait!);
  if (!done) return reply.code(408).send(result);
  if (done.status?.endsWith('.failed')) {
    throw new AppError('render_failed', `ticket ${done.id} failed (${done.status}, errorCode ${done.error_code}): ${done.error_message ?? 'unknown error'}`, {
      headers: { 'x-ticket-id': done.id },
    });
  }
  const artifact = await mainArtifact(ctx, done);
  const stream = await openArtifact(ctx, artifact);
  // The client holds the document now: that is a delivery, like a storage download.
  reply.raw.once('finish', () => void tickets.markShipped(ctx.db.kysely, done.id, ctx.now()).catch(() => {}));
  return reply.code(200).type(artifact.content_type).header('content-disposition', `attachment; filename="${artifact.name}"`).header('x-ticket-id', done.id).send(stream);
}
