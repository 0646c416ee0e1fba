import { Type, type Static } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { requireProject } from '../../auth/index.js';
import type { Context } from '../../context.js';
import { convertTypes, outputTypes, submitRender } from '../../intake/index.js';
import { RenderQuerySchema, type RenderQuery } from '../../tickets/index.js';
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

const ProjectParams = Type.Object({ tenant: Type.String(), project: Type.String() });
const inputTypes = ['application/xml', 'application/json', 'application/zip'];
// "Try it out" on the docs page starts from this XML; the grid format suits the built-in template.
const exampleXml = '<?xml version="1.0" encoding="UTF-8"?>\n<data>\n  <item><title>Hello from pressroom</title><price>42</price></item>\n</data>\n';
const inputBody = rawBody(inputTypes, {
  'application/xml': { schema: { type: 'string', description: 'XML data', examples: [exampleXml] } },
  'application/json': { schema: { description: 'JSON data (any JSON value)' } },
});
const IdempotencyHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 255,
      description:
        'Idempotent submission: the same key with the same request within 24 h creates no new job and gets the first answer again (202 body, or in synchronous mode the same ticket\'s result); a different request with the key is a 422, a repeat while the first is still in intake a 409 (docs/rendering.md)',
    }),
  ),
});
const renderErrors = errors(400, 401, 402, 403, 404, 405, 406, 409, 413, 415, 422, 500, 504);
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
        headers: IdempotencyHeaders,
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
        headers: IdempotencyHeaders,
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
        headers: IdempotencyHeaders,
        querystring: Type.Composite([RenderQuerySchema, Type.Object({ outputType: Type.Optional(Type.Literal('pdf')) })]),
        rawBody: inputBody,
        response: { 200: pdf, ...pending, ...renderErrors },
      },
    },
    async (req, reply) => render(ctx, req, reply, 'pdf'),
  );
}

/** Schema-checked request → intake (async or sync mode) → 202, 408 or the document. */
async function render(
  ctx: Context,
  req: FastifyRequest & { params: Static<typeof ProjectParams>; query: RenderQuery },
  reply: FastifyReply,
  target: 'pdf' | 'pptx',
): Promise<FastifyReply> {
  const { tenant, project } = req.params;
  const principal = principalOf(req);
  requireProject(principal, tenant, project);
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const accept = { header: req.headers.accept, negotiate: (offered: readonly string[]) => negotiate(req, offered) };
  const key = req.headers['idempotency-key'];
  const idempotency = typeof key === 'string' ? { key, contentType: req.headers['content-type'] ?? '' } : undefined;
  const answer = await submitRender(ctx, principal, { tenant, project, target, query: req.query, contentType: contentType(req), body }, accept, idempotency);
  if (answer.kind !== 'document') {
    const result: RenderResult = { tickets: answer.stored.tickets.map((id) => ({ id })), ...(answer.stored.aggregate ? { aggregate: { id: answer.stored.aggregate } } : {}) };
    return reply.code(answer.kind === 'queued' ? 202 : 408).send(result);
  }
  reply.raw.once('finish', answer.delivered);
  const { artifact } = answer;
  return reply.code(200).type(artifact.content_type).header('content-disposition', `attachment; filename="${artifact.name}"`).header('x-ticket-id', answer.ticket).send(answer.body);
}
