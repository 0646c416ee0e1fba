import { MediaAssets, mediaAssetsOptions } from '../assets/index.js';
import type { Context } from '../context.js';
import type { Step } from '../tickets/step.js';
import { aggregateStep } from './aggregate/step.js';
import { callbackStep } from './callback/index.js';
import { ConvertPool, convertStep } from './convert/index.js';
import { errorStep } from './error/index.js';
import { RenderPool } from './render-pdf/render-pool.js';
import { renderPdfStep } from './render-pdf/step.js';
import { renderPptxStep } from './render-pptx/step.js';
import { uploadStep } from './upload/index.js';

export { RenderPool, RenderError } from './render-pdf/render-pool.js';

/** The steps a worker process runs, with the process pools they share. */
export interface StepSet {
  readonly steps: ReadonlyMap<string, Step>;
  close(): Promise<void>;
}

/** Starts the render and transform pools and returns every implemented step by name. */
export function createSteps(ctx: Context): StepSet {
  const pool = new RenderPool(ctx.settings.renderThreads, ctx.settings.renderTimeoutMs, ctx.logger, ctx.settings.renderMaxRssMb * 1024 * 1024);
  const assets = new MediaAssets({ ...mediaAssetsOptions(ctx.settings), logger: ctx.logger });
  const convertPool = new ConvertPool(ctx.settings.renderThreads, ctx.settings.renderTimeoutMs, ctx.logger);
  const steps = new Map<string, Step>([
    ['renderpdf', renderPdfStep({ pool, transformer: ctx.transformer, assets })],
    ['renderpptx', renderPptxStep({ transformer: ctx.transformer })],
    ['aggregate', aggregateStep()],
    ['convert', convertStep({ pool: convertPool })],
    ['upload', uploadStep()],
    ['callback', callbackStep()],
    ['error', errorStep()],
  ]);
  return {
    steps,
    async close() {
      await Promise.all([pool.close(), convertPool.close(), assets.close()]);
    },
  };
}
