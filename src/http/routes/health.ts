import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { Context } from '../../context.js';
import { ping } from '../../store/index.js';

/** Liveness, readiness (database and blob store usable) and Prometheus metrics; no token needed. */
export async function healthRoutes(app: FastifyInstance, ctx: Context, registry: Registry, ready: () => boolean, blobProblem: () => Promise<string | null>): Promise<void> {
  const hidden = { schema: { hide: true }, config: { auth: false } } as const;
  app.get('/healthz', hidden, async () => ({ status: 'ok' }));
  app.get('/readyz', hidden, async (_req, reply) => {
    try {
      await ping(ctx.db);
    } catch {
      return reply.code(503).send({ status: 'unavailable', reason: 'database not reachable' });
    }
    const problem = await blobProblem();
    if (problem) return reply.code(503).send({ status: 'unavailable', reason: problem });
    if (!ready()) return reply.code(503).send({ status: 'unavailable', reason: 'starting or stopping' });
    return { status: 'ready' };
  });
  app.get('/metrics', hidden, async (_req, reply) => {
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
