import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { Context } from '../../context.js';
import { AppError } from '../../errors.js';
import * as repository from '../../repository/index.js';
import { contentType } from '../negotiate.js';
import { errors } from '../schemas.js';
import { principalOf } from '../types.js';

const Written = Type.Object({
  path: Type.String(),
  size: Type.Integer(),
  sha256: Type.String(),
  created: Type.Boolean({ description: 'true when the file did not exist before' }),
  updated: Type.String({ format: 'date-time' }),
});
const Deleted = Type.Object({ path: Type.String(), deleted: Type.Literal(true) });
const Actions = Type.Union([Type.Literal('DELETE'), Type.Literal('PUT'), Type.Literal('PATCH'), Type.Literal('GET')]);
const Encoding = Type.Union([Type.Literal('utf8'), Type.Literal('base64')]);
const BulkOperation = Type.Object(
  {
    action: Actions,
    paths: Type.Array(Type.String(), { uniqueItems: true, minItems: 1, maxItems: 1000, description: 'repository paths' }),
    value: Type.Optional(Type.String({ description: 'PUT: the content, in `encoding`' })),
    encoding: Type.Optional(Type.Union([Type.Literal('utf8'), Type.Literal('base64')], { description: 'PUT: how `value` is encoded; GET: base64 forces base64 results. Default utf8' })),
    patch: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'PATCH: merged into the .ion file (null removes a key)' })),
  },
  { additionalProperties: false },
);
const BulkResults = Type.Object({
  results: Type.Array(
    Type.Object({
      index: Type.Integer({ description: 'index of the operation in the request' }),
      action: Actions,
      path: Type.String(),
      status: Type.Integer(),
      created: Type.Optional(Type.Boolean()),
      deleted: Type.Optional(Type.Boolean()),
      size: Type.Optional(Type.Integer()),
      sha256: Type.Optional(Type.String()),
      updated: Type.Optional(Type.String({ format: 'date-time' })),
      encoding: Type.Optional(Encoding),
      value: Type.Optional(Type.String({ description: 'GET: the content' })),
    }),
  ),
});
const TreeUploadQuery = Type.Object({
  removeEmpty: Type.Boolean({ default: true, description: 'true: a zero-byte file entry deletes that file; false: it is stored empty' }),
  cometXmlMode: Type.Union([Type.Literal('zip'), Type.Literal('fileset')], { default: 'zip', description: 'accepted for compatibility; no effect' }),
});
const TreeUploadResult = Type.Object({ written: Type.Array(Written), removed: Type.Array(Type.String()) });
const TreeQuery = Type.Object({
  recursive: Type.Boolean({ default: false, description: 'false: files directly in the folder plus subfolder names; true: every file below' }),
  pattern: Type.Optional(Type.String({ description: `RE2 regex searched in the path relative to the folder (at most 256 characters; '' lists all). Default ${repository.DEFAULT_TREE_PATTERN}` })),
});
const TreeListing = Type.Object({
  path: Type.String(),
  recursive: Type.Boolean(),
  pattern: Type.String(),
  files: Type.Array(Type.Object({ path: Type.String(), name: Type.String(), size: Type.Integer(), sha256: Type.String(), updated: Type.String({ format: 'date-time' }) })),
  folders: Type.Array(Type.String()),
});
const Wildcard = Type.Object({ '*': Type.String({ description: 'repository path, e.g. tenants/<tenant>/projects/<project>/restapi/config.ion' }) });
// Raw bodies are not validated by schema; this only documents them in OpenAPI.
const RawBody = Type.Unsafe<Buffer>({ description: 'raw bytes' });
const FileContent = { description: 'the file content', content: { '*/*': { schema: { type: 'string', format: 'binary' } } } };
const zipTypes = ['application/zip', 'application/x-zip-compressed', 'application/octet-stream'];
const tags = ['repository'];

/** Repository files and trees: operator everywhere, a project admin under its project folder. */
export async function repositoryRoutes(app: FastifyInstance, ctx: Context): Promise<void> {
  const json = { produces: ['application/json'] } as const;
  // Before the body is read, so a jobs token cannot make the server parse a large upload.
  app.addHook('onRequest', async (req) => repository.requireRepositoryScope(principalOf(req)));

  app.put<{ Params: { '*': string }; Body: Buffer | undefined }>(
    '/repository/files/*',
    { config: json, schema: { tags, summary: 'Insert or replace a file', consumes: ['*/*'], params: Wildcard, body: RawBody, response: { 200: Written, ...errors(400, 401, 403, 404, 406, 413) } } },
    async (req) => repository.putFile(ctx, principalOf(req), req.params['*'], req.body ?? Buffer.alloc(0)),
  );
  app.post<{ Params: { '*': string }; Body: Buffer | undefined }>(
    '/repository/validate/*',
    {
      config: json,
      schema: {
        tags,
        summary: 'Check a file as PUT /repository/files/{path} would, without storing it: 200 when valid, else the 400 a PUT would answer',
        consumes: ['*/*'],
        params: Wildcard,
        body: RawBody,
        response: { 200: Type.Object({ valid: Type.Literal(true) }), ...errors(400, 401, 403, 404, 406, 413) },
      },
    },
    async (req) => repository.validateFile(ctx, principalOf(req), req.params['*'], req.body ?? Buffer.alloc(0)),
  );
  app.get<{ Params: { '*': string } }>(
    '/repository/files/*',
    { schema: { tags, summary: 'Read a file (content type from the extension)', params: Wildcard, response: { 200: FileContent, ...errors(400, 401, 403, 404) } } },
    async (req, reply) => {
      const file = await repository.getFile(ctx, principalOf(req), req.params['*']);
      return reply.type(file.contentType).header('etag', `"${file.sha256}"`).header('last-modified', new Date(file.updated).toUTCString()).header('x-content-type-options', 'nosniff').send(file.data);
    },
  );
  app.delete<{ Params: { '*': string } }>(
    '/repository/files/*',
    { config: json, schema: { tags, summary: 'Delete a file', params: Wildcard, response: { 200: Deleted, ...errors(400, 401, 403, 404, 406) } } },
    async (req) => repository.deleteFile(ctx, principalOf(req), req.params['*']),
  );

  await app.register(async (bulk) => {
    // This route alone takes JSON; elsewhere every body stays raw bytes.
    bulk.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
      try {
        done(null, JSON.parse(body as string));
      } catch {
        done(new AppError('bad_request', 'body is not valid JSON', { details: [{ field: 'body', message: 'not valid JSON' }] }));
      }
    });
    bulk.addHook('preValidation', async (req) => {
      if (contentType(req) !== 'application/json') throw new AppError('unsupported_media_type', 'bulk operations take Content-Type application/json');
    });
    bulk.post<{ Body: repository.BulkOperation[] }>(
      '/repository/files',
      {
        config: json,
        schema: {
          tags,
          summary: 'Bulk commit: GET, PUT, PATCH, DELETE operations, all-or-nothing',
          body: Type.Array(BulkOperation, { maxItems: 1000 }),
          response: { 200: BulkResults, ...errors(400, 401, 403, 404, 406, 413, 415) },
        },
      },
      async (req) => repository.runBulk(ctx, principalOf(req), req.body),
    );
  });

  app.post<{ Querystring: { removeEmpty: boolean; cometXmlMode: 'zip' | 'fileset' }; Body: Buffer | undefined }>(
    '/repository/tree',
    {
      config: json,
      schema: {
        tags,
        summary: 'Upload a ZIP of files from the repository root, all-or-nothing',
        consumes: zipTypes,
        querystring: TreeUploadQuery,
        body: RawBody,
        response: { 200: TreeUploadResult, ...errors(400, 401, 403, 404, 406, 413, 415) },
      },
    },
    async (req) => {
      if (!zipTypes.includes(contentType(req))) throw new AppError('unsupported_media_type', `tree upload takes a ZIP (${zipTypes.join(', ')})`);
      return repository.uploadTree(ctx, principalOf(req), req.body ?? Buffer.alloc(0), req.query);
    },
  );

  const list = { config: json, schema: { tags, summary: 'List the files of a folder', querystring: TreeQuery, response: { 200: TreeListing, ...errors(400, 401, 403, 404, 406) } } };
  app.get<{ Querystring: { recursive: boolean; pattern?: string } }>('/repository/tree', list, async (req) => repository.listTree(ctx, principalOf(req), '', req.query));
  app.get<{ Params: { '*': string }; Querystring: { recursive: boolean; pattern?: string } }>(
    '/repository/tree/*',
    { ...list, schema: { ...list.schema, params: Wildcard } },
    async (req) => repository.listTree(ctx, principalOf(req), req.params['*'], req.query),
  );
}
