import type { Context } from '../context.js';
import { AppError } from '../errors.js';
import { ConvertError, MupdfEngine, type PageImage } from '../engines/mupdf/index.js';
import { TypstEngine, type RenderJob, type RenderOutput } from '../engines/typst/index.js';

/**
 * The engine processes of previews, kept apart from the workers' so previews and queued
 * renders never wait for each other: Typst (at most two processes) and MuPDF for PNG pages,
 * each started on first use. The only place the preview module touches the engines.
 */
export class PreviewEngines {
  private typst: TypstEngine | null = null;
  private mupdf: MupdfEngine | null = null;

  constructor(private readonly ctx: Context) {}

  /** The preview time limit (each call passes its project's), and the workers' memory ceiling and recycling. */
  private get limits() {
    const { settings, logger } = this.ctx;
    return {
      size: Math.max(1, Math.min(2, settings.renderThreads)),
      timeoutMs: settings.previewTimeoutMs,
      maxMemoryBytes: settings.renderMaxMemoryMb * 1024 * 1024,
      maxRssBytes: settings.renderMaxRssMb * 1024 * 1024,
      logger,
    };
  }

  /** Compiles a job with a preview `output`; `signal` is the client going away. */
  render(job: RenderJob, timeoutMs: number, signal?: AbortSignal): Promise<RenderOutput> {
    this.typst ??= new TypstEngine(this.limits);
    return this.typst.render(job, timeoutMs, signal);
  }

  /** Draws every page of a PDF as PNG. */
  async rasterise(pdf: Buffer, resolution: number, timeoutMs: number): Promise<PageImage[]> {
    this.mupdf ??= new MupdfEngine(this.limits);
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
