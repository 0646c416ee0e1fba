import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { HUGE_PAGES_TUNABLE, mib, PoolError, ProcessPool, type PoolStats } from '../pool/index.js';
import type { ConvertJob, ConvertOutcome, ConvertProgress, MergeOutcome, MergePart, MupdfJob, PageImage } from './protocol.js';

/** Why a conversion failed: a missing page, a raster over the limits, an unreadable PDF, the time limit, the memory ceiling or the process. */
export class ConvertError extends Error {
  constructor(
    readonly kind: 'page' | 'too-large' | 'pdf' | 'timeout' | 'memory' | 'crash',
    message: string,
  ) {
    super(message);
  }
}

/** What a finished conversion reports besides its images. */
export interface ConvertResult {
  pageCount: number;
  pages: number[];
}

export interface MupdfEngineOptions {
  /** Processes at most, started on first use. */
  size: number;
  /** Time limit of a conversion; it restarts with every finished page. */
  timeoutMs: number;
  /** Per-job memory ceiling of a process. */
  maxMemoryBytes?: number;
  /** A process resident past this after a job is replaced (WASM memory never shrinks). @defaultValue 512 MiB */
  maxRssBytes?: number;
  logger: Logger;
}

const here = fileURLToPath(import.meta.url);
const childScript = here.replace(/mupdf-engine\.(ts|js)$/, 'mupdf-child.$1');
const fromSource = here.endsWith('.ts');

/** MuPDF over the process pool: PDF pages to PNG or JPEG. */
export class MupdfEngine {
  private readonly pool: ProcessPool<MupdfJob, ConvertOutcome | MergeOutcome, ConvertProgress>;
  private readonly ceilingMb: number | undefined;

  constructor(opts: MupdfEngineOptions) {
    this.ceilingMb = opts.maxMemoryBytes ? mib(opts.maxMemoryBytes) : undefined;
    this.pool = new ProcessPool({
      name: 'mupdf',
      size: opts.size,
      timeoutMs: opts.timeoutMs,
      recycleRssBytes: opts.maxRssBytes ?? 512 * 1024 * 1024,
      ...(opts.maxMemoryBytes ? { memoryCeilingBytes: opts.maxMemoryBytes } : {}),
      logger: opts.logger,
      command: () => ({ args: [...(fromSource ? ['--import', 'tsx'] : []), childScript], env: { GLIBC_TUNABLES: HUGE_PAGES_TUNABLE } }),
    });
  }

  /** Converts a PDF; `onPage` receives each image in page order before the promise settles. */
  async convert(job: ConvertJob, onPage: (image: PageImage) => void, timeoutMs?: number): Promise<ConvertResult> {
    let plan: ConvertResult = { pageCount: 0, pages: [] };
    const onProgress = (p: ConvertProgress) => {
      if (p.type === 'plan') plan = { pageCount: p.pageCount, pages: p.pages };
      else onPage({ ...p.image, data: Buffer.from(p.image.data.buffer, p.image.data.byteOffset, p.image.data.byteLength) });
    };
    const outcome = await this.pool.run(job, { onProgress, ...(timeoutMs === undefined ? {} : { timeoutMs }) }).catch((err: unknown) => {
      throw err instanceof PoolError ? this.convertErrorOf(err) : err;
    });
    if (outcome.ok) return plan;
    if (!('reason' in outcome)) throw new ConvertError('crash', 'the convert process answered a merge');
    if (outcome.reason === 'memory' && this.ceilingMb !== undefined) throw this.memoryError();
    throw new ConvertError(outcome.reason === 'memory' ? 'pdf' : outcome.reason, outcome.message);
  }

  /**
   * Concatenates PDFs in order with one bookmark per part, in a MuPDF process: a merge of a
   * thousand parts takes the better part of a second, which the service's thread would
   * otherwise spend not answering requests.
   */
  async merge(parts: MergePart[], timeoutMs?: number): Promise<{ pdf: Buffer; pages: number }> {
    const outcome = await this.pool.run({ kind: 'merge', parts }, timeoutMs === undefined ? {} : { timeoutMs }).catch((err: unknown) => {
      throw err instanceof PoolError ? this.convertErrorOf(err) : err;
    });
    if (!('pdf' in outcome)) {
      if (!outcome.ok && outcome.reason === 'memory' && this.ceilingMb !== undefined) throw this.memoryError();
      throw new ConvertError('pdf', outcome.ok ? 'the merge answered no PDF' : outcome.message);
    }
    return { pdf: Buffer.from(outcome.pdf.buffer, outcome.pdf.byteOffset, outcome.pdf.byteLength), pages: outcome.pages };
  }

  /**
   * Starts a MuPDF process when none runs, ahead of a merge known to come (a part of a fanout
   * with aggregate is rendering). A process merges two blank pages before it says it is ready
   * (mupdf-child.ts). A merge then does not wait for MuPDF to load (0.18–0.20 s); the first
   * merge of 1000 one-page parts in a process still took 0.55–0.57 s, the next 0.30–0.34 s
   * (docs/fanout.md). A merge asked for meanwhile waits for this process; a second one would
   * compete with it for the same cores and stay resident.
   */
  warm(): void {
    this.pool.prestart();
  }

  /** Busy, idle and queued conversion slots, for metrics. */
  stats(): PoolStats {
    return this.pool.stats();
  }

  /** Stops every process; queued conversions fail. */
  close(): Promise<void> {
    return this.pool.close();
  }

  private convertErrorOf(err: PoolError): ConvertError {
    if (err.kind === 'timeout') return new ConvertError('timeout', `conversion stopped after ${err.detail.timeoutMs} ms without progress (time limit)`);
    if (err.kind === 'memory') return this.memoryError();
    if (err.kind === 'closed') return new ConvertError('crash', 'convert pool closed');
    return new ConvertError('crash', err.detail.how ? `convert process ended (${err.detail.how}) while converting` : err.message);
  }

  private memoryError(): ConvertError {
    return new ConvertError('memory', `conversion stopped: the convert process passed the memory ceiling of ${this.ceilingMb} MiB`);
  }
}
