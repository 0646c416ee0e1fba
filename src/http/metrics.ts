import Fastify, { type FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, type Registry } from 'prom-client';
import { closeUnusedConnectionsOnClose } from './unused-connections.js';

/** Process series (CPU, memory, event loop) in a registry, once per registry. */
function registerProcessMetrics(registry: Registry): void {
  if (!registry.getSingleMetric('pressroom_process_cpu_seconds_total')) collectDefaultMetrics({ register: registry, prefix: 'pressroom_' });
}

/** Adds the process and HTTP series to the Context's registry (one per Context, so several servers in one process do not collide). */
export function installMetrics(app: FastifyInstance, registry: Registry): Registry {
  registerProcessMetrics(registry);
  const duration = new Histogram({
    name: 'pressroom_http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    duration.observe({ method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) }, reply.elapsedTime / 1000);
  });
  return registry;
}

/**
 * A worker's own small listener (PRESSROOM_METRICS_PORT): `/metrics` for Prometheus and
 * `/healthz` for a liveness probe. A worker serves nothing else, so nothing else is here.
 */
export async function startMetricsListener(registry: Registry, where: { host: string; port: number }): Promise<FastifyInstance> {
  registerProcessMetrics(registry);
  const app = Fastify({ logger: false });
  closeUnusedConnectionsOnClose(app);
  app.get('/metrics', async (_req, reply) => reply.type(registry.contentType).send(await registry.metrics()));
  app.get('/healthz', async () => ({ status: 'ok' }));
  await app.listen(where);
  return app;
}
