import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireProject } from '../../auth/index.js';
import type { Context } from '../../context.js';
import { AppError } from '../../errors.js';
import { intake, waitForTicket } from '../../intake/index.js';
import { mainArtifact, openArtifact, RenderQuerySchema, type RenderQuery } from '../../tickets/index.js';
import { tickets } from '../../store/index.js';
import { contentType, negotiate } from '../negotiate.js';
import { binaryResponse, errors, rawBody, ref } from '../schemas.js';
import { principalOf, type App } from '../types.js';

export const RenderResult = Type.Object(
  {
    tickets: Type.Array(Type.Object({ id: Type.String() })),
    aggregate: Type.Optional(Type.Object({ id: Type.String() }, { description: 'the aggregate ticket of a fanout with aggregate.enabled' })),
  },
  { $id: 'RenderResult', description: 'the tickets the request created' },
);
type RenderResult = Static<typeof RenderResult>;

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

const ProjectParams = Type.Object({ tenant: Type.String(), project: Type.String() });
const inputTypes = ['application/xml', 'application/json', 'application/zip'];
// "Try it out" on the docs page starts from this XML; the grid format suits the built-in template.
const exampleXml = '<?xml version="1.0" encoding="UTF-8"?>\n<data>\n  <item><title>Hello from pressroom</title><price>42</price></item>\n</data>\n';
const inputBody = rawBody(inputTypes, {
  'application/xml': { schema: { type: 'string', description: 'XML data', examples: [exampleXml] } },
  'application/json': { schema: { description: 'JSON data (any JSON value)' } },
});
const renderErrors = errors(400, 401, 402, 403, 404, 405, 406, 413, 415, 500, 504);
const pending = { 202: ref(RenderResult, 'Accepted: the tickets were queued'), 408: ref(RenderResult, 'synchronous mode: not finished within timeToWait; the tickets go on') };

/** POST …/renderpdf, …/renderpptx (and the discouraged POST …/render?outputType=pdf). */
export async function renderRoutes(app: App, ctx: Context): Promise<void> {
  app.addSchema(RenderResult);
  const tags = ['rendering'];
  const pdf = binaryResponse('synchronous mode: the PDF; with convert one image (image/png, image/jpeg) or a ZIP of a pageset', [outputTypes.pdf, ...convertTypes]);

  app.post(
    '/tenants/:tenant/projects/:project/renderpdf',
    {
      schema: {
        tags,
        operationId: 'renderPdf',
        summary: 'Render XML, JSON or ZIP data to PDF',
        params: ProjectParams,
        querystring: RenderQuerySchema,
        rawBody: inputBody,
        response: { 200: pdf, ...pending, ...renderErrors },
      },
    },
    async (req, reply) => render(ctx, req, reply, 'pdf'),
  );
  app.post(
    '/tenants/:tenant/projects/:project/renderpptx',
    {
      schema: {
        tags,
        operationId: 'renderPptx',
        summary: 'Render XML (presentation format), JSON or ZIP data to a PowerPoint deck from a master .pptx',
        params: ProjectParams,
        // convert is a PDF feature: not offered here (asking for it is a 400).
        querystring: Type.Omit(RenderQuerySchema, ['convert']),
        rawBody: inputBody,
        response: { 200: binaryResponse('synchronous mode: the presentation', [outputTypes.pptx]), ...pending, ...renderErrors },
      },
    },
    async (req, reply) => render(ctx, req, reply, 'pptx'),
  );
  app.post(
    '/tenants/:tenant/projects/:project/render',
    {
      schema: {
        tags,
        operationId: 'render',
        summary: 'Render (discouraged; use renderpdf)',
        deprecated: true,
        params: ProjectParams,
        querystring: Type.Composite([RenderQuerySchema, Type.Object({ outputType: Type.Optional(Type.Literal('pdf')) })]),
        rawBody: inputBody,
        response: { 200: pdf, ...pending, ...renderErrors },
      },
    },
    async (req, reply) => render(ctx, req, reply, 'pdf'),
  );
}

async function render(
  ctx: Context,
  req: FastifyRequest & { params: Static<typeof ProjectParams>; query: RenderQuery },
  reply: FastifyReply,
  target: 'pdf' | 'pptx',
): Promise<FastifyReply> {
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
  const result: RenderResult = { tickets: stored.tickets.map((id) => ({ id })), ...(stored.aggregate ? { aggregate: { id: stored.aggregate } } : {}) };
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
