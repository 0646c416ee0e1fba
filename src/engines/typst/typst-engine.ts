import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { PoolError, ProcessPool, type FloorRise, type PoolStats, type ProcessRef } from '../pool/index.js';
import type { DiagnosticDetail, PreviewPage, RenderJob, RenderResult, WireJob } from './protocol.js';
import { RENDER_PROCESS_TUNABLES } from './render-allocator.js';
import { ResidentFiles } from './resident-files.js';

/** Why a render failed: the template, the time limit, the memory ceiling or the process. */
export class RenderError extends Error {
  constructor(
    readonly kind: 'template' | 'timeout' | 'memory' | 'crash',
    message: string,
    readonly diagnostics: string[] = [],
    /** Previews: the diagnostics with their places. */
    readonly details: DiagnosticDetail[] = [],
  ) {
    super(message);
  }
}

export interface RenderOutput {
  pdf: Buffer;
  pages: number;
  warnings: string[];
  msecs: number;
  /** Jobs with a preview `output`: the pages and the warnings with their places. */
  preview?: { pages: PreviewPage[]; warnings: DiagnosticDetail[] };
}

export interface TypstEngineOptions {
  /** Render processes, kept warm. */
  size: number;
  /** Default time limit of one render. */
  timeoutMs: number;
  /**
   * Per-job memory ceiling of a render process: its share. A job may also use what the other
   * render processes leave unused, so all of them together stay within `size` × this.
   */
  maxMemoryBytes?: number;
  /** A process resident past this after a job is replaced: Typst's native caches keep growing. @defaultValue 512 MiB */
  maxRssBytes?: number;
  /** When a process whose memory floor rose is replaced. @defaultValue {@link FLOOR_RISE} */
  floorRise?: FloorRise;
  /** Bytes of shared files (templates, images, fonts) each process keeps between jobs. @defaultValue 32 MiB */
  residentBytes?: number;
  logger: Logger;
}

const here = fileURLToPath(import.meta.url);
const childScript = here.replace(/typst-engine\.(ts|js)$/, 'typst-child.$1');
const fromSource = here.endsWith('.ts');

/**
 * V8's young generation of a render process: 2 MiB semi-spaces instead of 16. A render process
 * allocates little JavaScript (job messages; the files and the PDF are external buffers), yet
 * over thousands of jobs the scavenger touches every page of both semi-spaces. Measured with
 * 600 bench sheets on 2 cores: about 7 MiB less PSS per process, render CPU per ticket the same
 * (11.0-11.4 against 11.4-11.9 ms).
 */
const YOUNG_GENERATION = '--max-semi-space-size=2';

/**
 * Render processes run without V8's allocation-site pretenuring, by which V8 allocates objects
 * straight in the old generation once earlier ones from the same place have outlived
 * collections. After about 1000 jobs it had learnt that the objects in front of a compile result
 * and its document live across a compile and began allocating them old: the young-generation
 * collection after each job no longer freed them, so Typst's native memory behind up to 500
 * jobs' documents waited for the next full collection, and glibc's main arena kept the pages
 * they had used. In the 20 000-sheet soak (2 cores) every render process went from about 83 MiB
 * to 140–215 MiB from its 970th job or so; with this flag each stayed at 81–86 MiB and the tree's
 * PSS at 207–218 MiB, Typst's time per job the same (mean 9.1 ms against 8.6–9.6 in three runs
 * without).
 */
const NO_PRETENURING = '--no-allocation-site-pretenuring';

/**
 * A render process is replaced once the least it held after each of its last 20 jobs, beyond
 * the files and fonts it keeps, is 24 MiB above that figure after its first 200 jobs: memory it
 * no longer uses and does not give back, whatever the cause. Before {@link NO_PRETENURING} it
 * replaced each process after about 1100 jobs in the soak and kept the tree at 206–233 MiB; a
 * fresh process's first job takes about 20–50 ms instead of 7.
 */
export const FLOOR_RISE: FloorRise = { settleJobs: 200, windowJobs: 20, marginBytes: 24 * 1024 * 1024 };

/**
 * A render process collects garbage on its own thread: V8's parallel collections hand work to
 * helper threads and wait for them, and waking a thread is dear on a virtual machine whose
 * cores are all busy rendering (as the thread pool's hand-offs were, blobs/direct-io.ts). The young
 * collection after each job is the one that counts (the heap is a few MiB). Timed inside the
 * process around it, 1000 fanout parts through the engine alone, 2 processes on 2 cores, three
 * alternated pairs: 0.16–0.22 ms a job against 0.25–0.32 ms; a job's CPU 1.11–1.20 × raw
 * Typst's against 1.12–1.31 ×, lower in each pair. In the service's 1000-part fanout (four
 * alternated pairs) each render process was preempted 1016–1426 times instead of 1789–3374.
 * A one-page data sheet (~12 ms) shows no difference either way.
 */
const ONE_GC_THREAD = '--single-threaded-gc';

/** Lets a render process collect a job's objects right after the job (typst-child.ts `freeJobObjects`). */
const FREE_JOB_OBJECTS = '--expose-gc';

/**
 * Typst over the process pool. Processes get an environment that points package downloads at
 * a dead proxy and package folders at an empty directory, so `@preview`/`@local` imports fail
 * instead of reaching the network or the host's files.
 */
export class TypstEngine {
  private readonly sandboxHome = mkdtempSync(join(tmpdir(), 'pressroom-typst-'));
  private readonly pool: ProcessPool<WireJob, RenderResult>;
  private readonly resident: ResidentFiles;

  constructor(opts: TypstEngineOptions) {
    const home = this.sandboxHome;
    this.resident = new ResidentFiles(opts.residentBytes ?? 32 * 1024 * 1024);
    const proxy = 'http://127.0.0.1:9';
    this.pool = new ProcessPool({
      name: 'typst',
      size: opts.size,
      warm: true,
      // A render process goes from one job to the next without waiting for the server's thread:
      // in a 1000-part fanout (2 cores) the parts took 4.75–5.13 s against 5.50–5.55 s.
      ahead: true,
      timeoutMs: opts.timeoutMs,
      recycleRssBytes: opts.maxRssBytes ?? 512 * 1024 * 1024,
      recycleOnFloorRise: opts.floorRise ?? FLOOR_RISE,
      // Typst holds a whole document until its compile ends (about 10 GiB for 10 000 catalogue
      // products), so a big document may borrow the memory the other render processes leave.
      ...(opts.maxMemoryBytes ? { memoryCeilingBytes: opts.maxMemoryBytes, shareMemory: true } : {}),
      logger: opts.logger,
      command: () => ({
        args: [YOUNG_GENERATION, NO_PRETENURING, ONE_GC_THREAD, FREE_JOB_OBJECTS, ...(fromSource ? ['--import', 'tsx'] : []), childScript],
        env: { HOME: home, XDG_CACHE_HOME: home, XDG_DATA_HOME: home, TYPST_PACKAGE_PATH: home, TYPST_PACKAGE_CACHE_PATH: home, HTTP_PROXY: proxy, HTTPS_PROXY: proxy, ALL_PROXY: proxy, NO_PROXY: '', GLIBC_TUNABLES: RENDER_PROCESS_TUNABLES },
      }),
    });
  }

  /** Renders a job, queueing when every process is busy; an aborted `signal` drops it from the queue. */
  async render(job: RenderJob, timeoutMs?: number, signal?: AbortSignal): Promise<RenderOutput> {
    let reply = await this.run(job, timeoutMs, signal);
    // A process that lost a file it was told to keep would be a bug; answer the job all the same.
    if (!reply.ok && reply.missing) reply = await this.run(job, timeoutMs, signal, true);
    if (!reply.ok) throw new RenderError('template', reply.message, reply.diagnostics, reply.details);
    const pdf = Buffer.from(reply.pdf.buffer, reply.pdf.byteOffset, reply.pdf.byteLength);
    return { pdf, pages: reply.pages, warnings: reply.warnings, msecs: reply.msecs, ...(reply.preview ? { preview: reply.preview } : {}) };
  }

  private run(job: RenderJob, timeoutMs: number | undefined, signal: AbortSignal | undefined, again = false): Promise<RenderResult> {
    const wire = (process: ProcessRef): WireJob => {
      if (again) this.resident.forget(process);
      const fontFiles = job.fonts?.files ?? [];
      const { files, drop } = this.resident.plan(process, [...job.files, ...fontFiles]);
      const { fonts, ...rest } = job;
      return { ...rest, files: files.slice(0, job.files.length), drop, ...(fonts ? { fonts: { key: fonts.key, files: files.slice(job.files.length) } } : {}) };
    };
    return this.pool.run(wire, { ...(timeoutMs === undefined ? {} : { timeoutMs }), ...(signal ? { signal } : {}) }).catch((err: unknown) => {
      throw err instanceof PoolError ? renderErrorOf(err) : err;
    });
  }

  /** Busy, idle and queued render slots, for metrics. */
  stats(): PoolStats {
    return this.pool.stats();
  }

  /** Stops every process; queued jobs fail. */
  async close(): Promise<void> {
    await this.pool.close();
    rmSync(this.sandboxHome, { recursive: true, force: true });
  }
}

function renderErrorOf(err: PoolError): RenderError {
  switch (err.kind) {
    case 'timeout':
      return new RenderError('timeout', `render stopped after ${err.detail.timeoutMs} ms (time limit)`);
    case 'memory':
      return new RenderError('memory', `render stopped: the render process passed the memory ceiling of ${err.detail.ceilingMb} MiB`);
    case 'closed':
      return new RenderError('crash', 'render pool closed');
    case 'cancelled':
      return new RenderError('crash', 'render cancelled');
    default:
      return new RenderError('crash', err.detail.how ? `render process ended (${err.detail.how}) while rendering` : err.message);
  }
}
