import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { ConvertError, ConvertPool, type PageImage } from '../steps/convert/index.js';
import type { RenderJob } from '../steps/render-pdf/render-protocol.js';
import { RenderPool, type RenderOutput } from '../steps/render-pdf/render-pool.js';

/**
 * The engine processes of previews, kept apart from the workers' so previews and queued
 * renders never wait for each other: Typst (at most two processes) and MuPDF for PNG pages,
 * each started on first use. The only place the preview module touches the engines.
 */
export class PreviewEngines {
  private typst: RenderPool | null = null;
  private mupdf: ConvertPool | null = null;

  constructor(private readonly ctx: Context) {}

  private get size(): number {
    return Math.max(1, Math.min(2, this.ctx.settings.renderThreads));
  }

  /** Compiles a job with a preview `output`; `signal` is the client going away. */
  render(job: Omit<RenderJob, 'id'>, timeoutMs: number, signal?: AbortSignal): Promise<RenderOutput> {
    const { settings, logger } = this.ctx;
    this.typst ??= new RenderPool(this.size, settings.renderTimeoutMs, logger, settings.renderMaxRssMb * 1024 * 1024);
    return this.typst.render(job, timeoutMs, signal);
  }

  /** Draws every page of a PDF as PNG. */
  async rasterise(pdf: Buffer, resolution: number, timeoutMs: number): Promise<PageImage[]> {
    this.mupdf ??= new ConvertPool(this.size, this.ctx.settings.renderTimeoutMs, this.ctx.logger);
    const images: PageImage[] = [];
    await this.mupdf.convert({ pdf, format: 'png', resolution, quality: 0, pages: { kind: 'pageset', ranges: [{ from: 1, to: null }] } }, (image) => images.push(image), timeoutMs).catch((err: unknown) => {
      if (err instanceof ConvertError && err.kind === 'too-large') throw new AppError('payload_too_large', `preview: ${err.message}`);
      if (err instanceof ConvertError && err.kind === 'timeout') throw new AppError('template_timeout', `preview: drawing the pages took longer than ${timeoutMs} ms`);
      throw new AppError('internal', 'preview: drawing the pages failed', { cause: err });
    });
    return images;
  }

  async close(): Promise<void> {
    await Promise.all([this.typst?.close(), this.mupdf?.close()]);
  }
}
