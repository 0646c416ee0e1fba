import { STATUS_CODES } from 'node:http';
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifySwaggerUiOptions } from '@fastify/swagger-ui';
import type { FastifySchema } from 'fastify';

/** Name of the path parameter that stands for Fastify's `*` (a repository path, slashes included). */
export const REPOSITORY_PATH_PARAM = 'path';

const repositoryPath = {
  type: 'object',
  properties: {
    [REPOSITORY_PATH_PARAM]: {
      type: 'string',
      description: 'repository path, slashes included, e.g. tenants/<tenant>/projects/<project>/restapi/config.ion',
    },
  },
  required: [REPOSITORY_PATH_PARAM],
};

/** A stable operationId for a route that does not name one: method and the literal path segments. */
function derivedOperationId(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((s) => s !== '' && s !== 'rest' && !s.startsWith(':') && s !== '*')
    .flatMap((s) => s.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join('');
}

/** Responses without a description get the status's reason phrase instead of "Default Response". */
function described(responses: Record<string, Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(responses).map(([status, schema]) => [status, schema.description ? schema : { ...schema, description: STATUS_CODES[Number(status)] ?? status }]));
}

/**
 * Turns a route into what the document shows, without touching validation: `*` becomes a named
 * `{path}` parameter, raw request bodies are shown per media type, and every operation has an id.
 */
function transform({ schema, url, route }: { schema: FastifySchema; url: string; route: { method: string | string[] } }): { schema: FastifySchema; url: string } {
  const doc: Record<string, unknown> = { ...schema };
  if (doc.rawBody) {
    doc.body = { content: doc.rawBody };
    delete doc.rawBody;
  }
  let path = url;
  if (url.endsWith('*')) {
    path = `${url.slice(0, -1)}:${REPOSITORY_PATH_PARAM}`;
    doc.params = repositoryPath;
  }
  const method = Array.isArray(route.method) ? route.method[0]! : route.method;
  doc.operationId ??= derivedOperationId(method, url);
  if (doc.response) doc.response = described(doc.response as Record<string, Record<string, unknown>>);
  return { schema: doc as FastifySchema, url: path };
}

/** The OpenAPI document: one document for /rest and /auth (absolute paths, no servers), components named by $id. */
export const swaggerOptions: FastifyDynamicSwaggerOptions = {
  openapi: {
    openapi: '3.1.0',
    info: {
      title: 'pressroom rendering service',
      version: '1.4.0',
      description: 'Document rendering service interface: render, tickets, storage, repository, tenants, statistics, tokens.',
    },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    security: [{ bearer: [] }],
  },
  refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `schema${i}`) },
  transform,
};

// A plain "p" mark, so the page shows no framework logo even as a tab icon.
const favicon = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#243447"/><text x="8" y="12.5" font-family="sans-serif" font-size="12" font-weight="bold" text-anchor="middle" fill="#fff">p</text></svg>',
);

/** The docs page at /rest/docs: pressroom's title, no logo bar, try-it-out ready. */
export const swaggerUiOptions: FastifySwaggerUiOptions = {
  routePrefix: '/rest/docs',
  // Not drawn (BaseLayout has no top bar); given so the plugin does not embed its framework logo.
  logo: { type: 'image/svg+xml', content: favicon },
  theme: {
    title: 'pressroom rendering service API',
    favicon: [{ filename: 'favicon.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: favicon }],
  },
  // BaseLayout has no top bar, so neither Swagger's nor Fastify's logo is drawn.
  uiConfig: { url: '/rest/openapi.json', layout: 'BaseLayout', tryItOutEnabled: false, displayOperationId: true } as never,
};
