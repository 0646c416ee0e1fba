import type { Context } from '../context.js';
import { RenderPool } from './render-pdf/render-pool.js';
import { renderPdfStep } from './render-pdf/step.js';
import type { Step } from './step.js';
import { Transformer } from './transform/index.js';

export type { Step, StepInput, StepOutcome } from './step.js';
export { RenderPool, RenderError } from './render-pdf/render-pool.js';

/** The steps a worker process runs, with the process pools they share. */
export interface StepSet {
  readonly steps: ReadonlyMap<string, Step>;
  close(): Promise<void>;
}

/** Starts the render and transform pools and returns every implemented step by name. */
export function createSteps(ctx: Context): StepSet {
  const pool = new RenderPool(ctx.settings.renderThreads, ctx.settings.renderTimeoutMs, ctx.logger);
  const transformer = new Transformer({ processes: Math.max(1, Math.min(2, ctx.settings.renderThreads)), timeoutMs: ctx.settings.renderTimeoutMs, logger: ctx.logger });
  const steps = new Map<string, Step>([['renderpdf', renderPdfStep({ pool, transformer })]]);
  return {
    steps,
    async close() {
      await Promise.all([pool.close(), transformer.close()]);
    },
  };
}
