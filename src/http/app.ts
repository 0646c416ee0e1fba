import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type HTTPMethods } from 'fastify';
import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { unauthorized } from '../auth/index.js';
import { installErrorHandling, sendError } from './error-handler.js';
import { installMetrics } from './metrics.js';
import { negotiate } from './negotiate.js';
import { swaggerOptions, swaggerUiOptions } from './openapi.js';
import { ErrorBody } from './schemas.js';
import { closeUnusedConnectionsOnClose } from './unused-connections.js';
import { studioRoutes } from './studio.js';
import { authRoutes } from './routes/auth-tokens.js';
import { healthRoutes } from './routes/health.js';
import { previewRoutes } from './routes/preview.js';
import { renderRoutes } from './routes/render.js';
import { repositoryRoutes } from './routes/repository.js';
import { statisticsRoutes } from './routes/statistics.js';
import { tenantRoutes } from './routes/tenants.js';
import { ticketRoutes } from './routes/tickets.js';
import type { App } from './types.js';

/** Route plugins under /rest, one per resource. */
const restPlugins: ((app: App, ctx: Context) => Promise<void>)[] = [tenantRoutes, repositoryRoutes, renderRoutes, ticketRoutes, statisticsRoutes, previewRoutes];

const allMethods: HTTPMethods[] = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'];

/** Builds the Fastify app for a context, without listening (tests inject or listen on port 0). */
export async function buildApp(ctx: Context, opts: { ready?: () => boolean; blobProblem?: () => Promise<string | null> } = {}): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    bodyLimit: ctx.settings.bodyLimit,
    trustProxy: false,
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 1000 },
    ajv: { customOptions: { coerceTypes: 'array', removeAdditional: false, allErrors: true } },
    // Malformed URLs never reach the error handler; answer them in the same error shape.
    frameworkErrors: (err, req, reply) => sendError(req, reply, err),
  }).withTypeProvider<TypeBoxTypeProvider>();
  app.decorateRequest('principal', null);
  closeUnusedConnectionsOnClose(app);
  installErrorHandling(app);
  const registry = installMetrics(app, ctx.metrics.registry);

  // Raw bodies everywhere; each route checks the media types it accepts (415 otherwise).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));

  const methodsByUrl = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const set = methodsByUrl.get(route.url) ?? new Set<string>();
    methods.forEach((m) => set.add(m));
    methodsByUrl.set(route.url, set);
  });

  await app.register(swagger, swaggerOptions);

  app.addSchema(ErrorBody);

  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config;
    if (!req.routeOptions.url) return;
    // The docs page (swagger-ui's own routes, which carry no config) is public like the spec it shows.
    const isDocs = req.routeOptions.url === '/rest/docs' || req.routeOptions.url.startsWith('/rest/docs/');
    if (config.auth !== false && req.routeOptions.url.startsWith('/rest') && !isDocs) {
      const header = req.headers.authorization ?? '';
      const m = /^Bearer ([A-Za-z0-9_.-]+)$/i.exec(header);
      if (!m) throw unauthorized(header ? 'Authorization header is not a bearer token' : 'bearer token missing');
      req.principal = await ctx.tokens.verify(m[1]!);
    }
    if (config.produces) negotiate(req, config.produces);
  });

  await app.register(async (rest) => {
    rest.get('/openapi.json', { schema: { hide: true }, config: { auth: false } }, async () => app.swagger());
    for (const plugin of restPlugins) await rest.register(async (scope) => plugin(scope.withTypeProvider<TypeBoxTypeProvider>(), ctx));
  }, { prefix: '/rest' });
  await app.register(swaggerUi, swaggerUiOptions);
  await app.register(async (auth) => authRoutes(auth.withTypeProvider<TypeBoxTypeProvider>(), ctx), { prefix: '/auth' });
  await app.register(async (root) => healthRoutes(root, ctx, registry, opts.ready ?? (() => true), opts.blobProblem ?? (async () => null)));
  await app.register(async (root) => studioRoutes(root));

  // 405 for a known path with another method, instead of a misleading 404.
  for (const [url, methods] of methodsByUrl) {
    if (url.startsWith('/rest/docs')) continue;
    const missing = allMethods.filter((m) => !methods.has(m));
    if (missing.length === 0) continue;
    const allow = [...methods].filter((m) => m !== 'HEAD').join(', ');
    app.route({
      method: missing,
      url,
      schema: { hide: true },
      config: { auth: false },
      handler: async (req, reply) => {
        void reply.header('allow', allow);
        throw new AppError('method_not_allowed', `${req.method} is not allowed here; allowed: ${allow}`);
      },
    });
  }
  return app;
}
