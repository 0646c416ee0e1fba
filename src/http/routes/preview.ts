import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { requireProjectAdmin } from '../../auth/index.js';
import type { Context } from '../../context.js';
import { AppError } from '../../errors.js';
import { checkPreviewBody, DEFAULT_PREVIEW_RESOLUTION, Previewer, previewLimits, type PreviewBody } from '../../preview/index.js';
import { assertProjectExists } from '../../tenants/index.js';
import { contentType } from '../negotiate.js';
import { ErrorBody, errors } from '../schemas.js';
import { principalOf } from '../types.js';

const MiB = 1024 * 1024;

const PreviewRequest = Type.Object(
  {
    template: Type.Optional(Type.String({ description: `Typst source of the template (at most ${previewLimits.templateBytes / MiB} MiB); absent: the stored template named by documentTemplate` })),
    documentTemplate: Type.Optional(
      Type.String({ pattern: '^[\\w.-]{1,100}$', description: 'template name: the stored template to use when `template` is absent, and the main file `/master-documents/<name>.typ` either way (default: as for renderpdf, else `default`)' }),
    ),
    data: Type.Optional(Type.String({ description: `the data (at most ${previewLimits.dataBytes / MiB} MiB), seen by the template as /data.xml or /data.json; absent: an empty root` })),
    dataType: Type.Optional(Type.Union([Type.Literal('xml'), Type.Literal('json')], { default: 'xml' })),
    resources: Type.Optional(
      Type.Record(Type.String(), Type.String({ description: 'base64' }), {
        description: `files beside the data by relative path (\`images/logo.png\` is /images/logo.png and listed in sys.inputs.resources), base64; at most ${previewLimits.resourceCount} files and ${previewLimits.resourceBytes / MiB} MiB`,
      }),
    ),
    format: Type.Optional(Type.Union([Type.Literal('svg'), Type.Literal('png')], { default: 'svg' })),
    resolution: Type.Optional(Type.Integer({ minimum: 18, maximum: 300, default: DEFAULT_PREVIEW_RESOLUTION, description: 'png: dots per inch' })),
  },
  { additionalProperties: false },
);

const Diagnostic = Type.Object({
  file: Type.String({ description: 'job path of the file, e.g. /master-documents/default.typ or /pressroom/lib.typ' }),
  line: Type.Integer({ minimum: 1 }),
  column: Type.Integer({ minimum: 1, description: '1-based, in UTF-16 code units (as JavaScript strings and editors count)' }),
  message: Type.String(),
  severity: Type.Union([Type.Literal('error'), Type.Literal('warning')], { description: 'warning also for the hints Typst adds to an error (`while calling f`)' }),
});

const PreviewResponse = Type.Object({
  pages: Type.Array(
    Type.Object({
      index: Type.Integer({ minimum: 1, description: '1-based page number' }),
      width: Type.Number({ description: 'points, rounded up to whole points' }),
      height: Type.Number({ description: 'points, rounded up to whole points' }),
      svg: Type.Optional(Type.String({ description: 'format svg: a standalone SVG of the page (glyphs as paths, and a transparent text layer of XHTML elements in foreignObject for selection and screen readers)' })),
      png: Type.Optional(Type.String({ description: 'format png: the page image, base64' })),
      text: Type.String({ description: "the page's text, lines separated by newlines" }),
    }),
  ),
  compileMs: Type.Integer({ description: 'time the render process took (compile and export)' }),
  diagnostics: Type.Array(Diagnostic, { description: 'warnings of a successful compile' }),
});

const TemplateErrorBody = Type.Composite([Type.Omit(ErrorBody, ['details']), Type.Object({ diagnostics: Type.Array(Diagnostic) })], {
  description: 'code template_error: the compile errors with their places',
});

/** POST …/preview: a template over data, answered as pages; no ticket, no statistics. */
export async function previewRoutes(app: FastifyInstance, ctx: Context): Promise<void> {
  const previewer = new Previewer(ctx);
  app.addHook('onClose', async () => previewer.close());
  // This route alone in its scope takes JSON; elsewhere bodies stay raw bytes.
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch {
      done(new AppError('bad_request', 'body is not valid JSON', { details: [{ field: 'body', message: 'not valid JSON' }] }));
    }
  });

  app.post<{ Params: { tenant: string; project: string }; Body: PreviewBody }>(
    '/tenants/:tenant/projects/:project/preview',
    {
      config: { produces: ['application/json'] },
      bodyLimit: Math.min(ctx.settings.bodyLimit, previewLimits.bodyBytes),
      // Before the body is read: a jobs token or another project's token costs no parsing.
      onRequest: async (req) => requireProjectAdmin(principalOf(req), (req.params as { tenant: string }).tenant, (req.params as { project: string }).project),
      preValidation: async (req) => {
        if (contentType(req) !== 'application/json') throw new AppError('unsupported_media_type', 'preview takes Content-Type application/json');
      },
      schema: {
        tags: ['preview'],
        summary: 'Render a template over data as pages (SVG or PNG) with their text, in the sandbox and time limit of rendering; creates no ticket and counts no statistics (scope admin)',
        params: Type.Object({ tenant: Type.String(), project: Type.String() }),
        consumes: ['application/json'],
        body: PreviewRequest,
        response: { 200: PreviewResponse, ...errors(400, 401, 403, 404, 406, 413, 415, 500, 504), 422: TemplateErrorBody },
      },
    },
    async (req, reply) => {
      await assertProjectExists(ctx, req.params.tenant, req.params.project);
      const input = checkPreviewBody(req.body);
      // A client that goes away (a newer keystroke) frees the render process soon.
      const abort = new AbortController();
      reply.raw.once('close', () => {
        if (!reply.raw.writableFinished) abort.abort();
      });
      return previewer.preview(principalOf(req), req.params.tenant, req.params.project, input, abort.signal);
    },
  );
}
