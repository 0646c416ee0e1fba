import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { bootstrapOperator } from './auth/index.js';
import { BlobProbe } from './blobs/index.js';
import type { Settings } from './config/settings.js';
import { openContext, type Context } from './context.js';
import { Transformer } from './engines/xslt/index.js';
import { buildApp } from './http/app.js';
import { startMetricsListener } from './http/metrics.js';
import { createSteps, type StepSet } from './steps/index.js';
import { queueDepth } from './store/index.js';
import { Worker } from './tickets/index.js';
import { startHousekeeping, type Housekeeping } from './tickets/retention/index.js';

/** A running pressroom process: its context, HTTP app (api role) and a stop function. */
export interface Server {
  readonly ctx: Context;
  readonly app: FastifyInstance | null;
  /** Base URL of the HTTP listener, e.g. http://127.0.0.1:8080 (null without the api role). */
  readonly url: string | null;
  /** Base URL of a worker's /metrics listener (PRESSROOM_METRICS_PORT), else null. */
  readonly metricsUrl: string | null;
  stop(): Promise<void>;
}

/** Opens the shared Context with the engines it carries (the XSLT sandbox): for startServer, and tests that need no server. */
export function createContext(settings: Settings, opts: { now?: () => number; logger?: Logger } = {}): Promise<Context> {
  return openContext(settings, {
    ...opts,
    transformer: (logger) =>
      new Transformer({
        processes: Math.max(1, Math.min(2, settings.renderThreads)),
        timeoutMs: settings.renderTimeoutMs,
        maxMemoryMb: settings.renderMaxMemoryMb,
        memoryCeilingMb: settings.renderMaxMemoryMb,
        logger,
      }),
  });
}

/** The base URL a listening app answers on (the port it got when 0 was asked for). */
function urlOf(app: FastifyInstance, host: string, asked: number): string {
  const addr = app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : asked;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Starts the roles the settings ask for: migrate, bootstrap, listen, run workers. */
export async function startServer(settings: Settings, opts: { now?: () => number; logger?: Logger } = {}): Promise<Server> {
  const ctx = await createContext(settings, { ...(opts.now ? { now: opts.now } : {}), ...(opts.logger ? { logger: opts.logger } : {}) });
  let stopping = false;
  let app: FastifyInstance | null = null;
  let url: string | null = null;
  let metricsApp: FastifyInstance | null = null;
  let metricsUrl: string | null = null;
  let stepSet: StepSet | null = null;
  let worker: Worker | null = null;
  let housekeeping: Housekeeping | null = null;
  let stopWaiting: (() => void) | null = null;
  const probe = new BlobProbe(ctx.blobs);
  try {
    // A blob store that cannot be used is reported, not fatal: the process stays up (no crash
    // loop), /readyz says why, and workers start claiming once the store answers.
    const blobProblem = await probe.problem();
    if (blobProblem) ctx.logger.error({ blobStore: ctx.blobs.description }, `${blobProblem}; not ready until the blob store can be used (see /readyz)`);
    // Only the embedded service creates the first operator: in a cluster, any api or worker
    // process could win that race and leave the password on its own host (`pressroom operator create`).
    if (settings.role === 'all') await bootstrapOperator(ctx.db, { password: settings.adminPassword, dataDir: settings.dataDir, report: (message) => ctx.logger.info(message) });
    if (settings.role !== 'worker') {
      ctx.metrics.observeQueue(() => queueDepth(ctx.db.kysely, ctx.now()));
      app = await buildApp(ctx, { ready: () => !stopping, blobProblem: () => probe.problem() });
      await app.listen({ host: settings.host, port: settings.port });
      url = urlOf(app, settings.host, settings.port);
    }
    if (settings.role !== 'api') {
      stepSet = createSteps(ctx);
      const engines = stepSet;
      ctx.metrics.observeEngines(() => engines.engineStats());
      if (settings.role === 'worker' && settings.metricsPort !== null) {
        ctx.metrics.observeQueue(() => queueDepth(ctx.db.kysely, ctx.now()));
        metricsApp = await startMetricsListener(ctx.metrics.registry, { host: settings.host, port: settings.metricsPort });
        metricsUrl = urlOf(metricsApp, settings.host, settings.metricsPort);
      }
      const w = (worker = new Worker(ctx, ctx.notifier, stepSet.steps));
      // Claiming without a blob store would fail every ticket claimed; waiting costs nothing.
      stopWaiting = probe.whenUsable(
        5000,
        () => {
          if (blobProblem) ctx.logger.info({ blobStore: ctx.blobs.description }, 'blob store usable; worker starts');
          w.start();
        },
        (problem) => ctx.logger.debug({ problem }, 'worker waits for the blob store'),
      );
    }
    // Every process offers to run housekeeping; one wins each round (see tickets/retention).
    housekeeping = startHousekeeping(ctx);
  } catch (err) {
    stopWaiting?.();
    await housekeeping?.stop();
    await worker?.stop();
    await stepSet?.close();
    await app?.close();
    await metricsApp?.close();
    await ctx.close();
    throw err;
  }
  return {
    ctx,
    app,
    url,
    metricsUrl,
    async stop() {
      if (stopping) return;
      stopping = true;
      stopWaiting?.();
      await app?.close();
      await metricsApp?.close();
      // Grace period for running steps, then their tickets are released (see Worker.stop).
      await worker?.stop();
      await housekeeping?.stop();
      await stepSet?.close();
      // Closing the engines ends released renders; let their steps wind down before the store closes.
      await worker?.settle();
      await ctx.close();
    },
  };
}
