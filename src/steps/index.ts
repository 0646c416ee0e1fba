import { MediaAssets, mediaAssetsOptions } from '../assets/index.js';
import type { Context } from '../context.js';
import { MupdfEngine } from '../engines/mupdf/index.js';
import type { PoolStats } from '../engines/pool/index.js';
import { TypstEngine } from '../engines/typst/index.js';
import type { Step } from '../tickets/step.js';
import { aggregateStep } from './aggregate/step.js';
import { callbackStep } from './callback/index.js';
import { convertStep } from './convert/index.js';
import { errorStep } from './error/index.js';
import { renderPdfStep } from './render-pdf/step.js';
import { renderPptxStep } from './render-pptx/step.js';
import { targets } from './targets.js';
import { uploadStep } from './upload/index.js';


/** The steps a worker process runs, with the process pools they share. */
export interface StepSet {
  readonly steps: ReadonlyMap<string, Step>;
  /** Busy, idle and queued slots of each engine's process pool, for metrics. */
  engineStats(): Record<'typst' | 'mupdf' | 'xslt', PoolStats>;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;

/** Starts the Typst and MuPDF engines and returns every implemented step by name. */
export function createSteps(ctx: Context): StepSet {
  const { renderThreads, renderTimeoutMs, renderMaxRssMb, renderMaxMemoryMb } = ctx.settings;
  const limits = { size: renderThreads, timeoutMs: renderTimeoutMs, maxRssBytes: renderMaxRssMb * MiB, maxMemoryBytes: renderMaxMemoryMb * MiB, logger: ctx.logger };
  const typst = new TypstEngine(limits);
  const mupdf = new MupdfEngine(limits);
  const assets = new MediaAssets({ ...mediaAssetsOptions(ctx.settings), logger: ctx.logger });
  const steps = new Map<string, Step>([
    [targets.pdf.step, renderPdfStep({ typst, mupdf, transformer: ctx.transformer, assets })],
    [targets.pptx.step, renderPptxStep({ transformer: ctx.transformer })],
    ['aggregate', aggregateStep({ mupdf })],
    ['convert', convertStep({ mupdf })],
    ['upload', uploadStep()],
    ['callback', callbackStep()],
    ['error', errorStep()],
  ]);
  return {
    steps,
    engineStats: () => ({ typst: typst.stats(), mupdf: mupdf.stats(), xslt: ctx.transformer.poolStats() }),
    async close() {
      await Promise.all([typst.close(), mupdf.close(), assets.close()]);
    },
  };
}
