import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import type { DiagnosticDetail, PreviewPage, RenderJob, RenderReply } from './render-protocol.js';

/** Why a render failed: the template (`template`), the time limit (`timeout`) or the process (`crash`). */
export class RenderError extends Error {
  constructor(
    readonly kind: 'template' | 'timeout' | 'crash',
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

interface Slot {
  child: ChildProcess;
  /** Killed (time limit) but not yet exited: takes no more jobs. */
  dying: boolean;
  busy: { job: RenderJob; resolve: (r: RenderOutput) => void; reject: (e: Error) => void; timer: NodeJS.Timeout; deadline: number } | null;
}

const here = fileURLToPath(import.meta.url);
const childScript = here.replace(/render-pool\.(ts|js)$/, 'render-child.$1');
const fromSource = here.endsWith('.ts');

/**
 * Typst in child processes: compilation is native code that a thread cannot interrupt, so a
 * runaway template is stopped by killing its process. Children get an environment that
 * points package downloads at a dead proxy and package folders at an empty directory, so
 * `@preview`/`@local` imports fail instead of reaching the network or the host's files.
 */
export class RenderPool {
  private readonly slots: Slot[] = [];
  private readonly queue: { job: RenderJob; timeoutMs: number; resolve: (r: RenderOutput) => void; reject: (e: Error) => void }[] = [];
  private readonly sandboxHome = mkdtempSync(join(tmpdir(), 'pressroom-typst-'));
  private nextId = 1;
  private closed = false;

  /**
   * @param maxRssBytes a process that has grown past this after a job is replaced: Typst's
   * native caches keep growing across compilations, so processes are recycled like workers
   * of a pre-fork server.
   */
  constructor(
    private readonly size: number,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
    private readonly maxRssBytes = 512 * 1024 * 1024,
  ) {
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  /**
   * Renders a job, queueing when every process is busy. An aborted `signal` (a preview whose
   * client went away) drops a queued job; a running one may finish within `abortGraceMs`,
   * else its process is stopped as at the time limit (killing a warm process on every
   * superseded preview would make the next one cold).
   */
  render(job: Omit<RenderJob, 'id'>, timeoutMs = this.timeoutMs, signal?: AbortSignal, abortGraceMs = 1000): Promise<RenderOutput> {
    if (this.closed) return Promise.reject(new RenderError('crash', 'render pool is closed'));
    if (signal?.aborted) return Promise.reject(new RenderError('crash', 'render cancelled'));
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.queue.push({ job: { ...job, id }, timeoutMs, resolve, reject });
      signal?.addEventListener('abort', () => this.cancel(id, abortGraceMs), { once: true });
      this.pump();
    });
  }

  private cancel(id: number, graceMs: number): void {
    const queued = this.queue.findIndex((q) => q.job.id === id);
    if (queued >= 0) return void this.queue.splice(queued, 1)[0]!.reject(new RenderError('crash', 'render cancelled'));
    const slot = this.slots.find((s) => s.busy?.job.id === id);
    const busy = slot?.busy;
    if (!slot || !busy || busy.deadline <= Date.now() + graceMs) return;
    clearTimeout(busy.timer);
    busy.deadline = Date.now() + graceMs;
    busy.timer = setTimeout(() => this.stop(slot, new RenderError('crash', 'render cancelled')), graceMs);
  }

  /** Kills a slot's process, failing its job with `error`; a fresh process replaces it. */
  private stop(slot: Slot, error: RenderError): void {
    const busy = slot.busy;
    if (busy) clearTimeout(busy.timer);
    slot.busy = null;
    slot.dying = true;
    busy?.reject(error);
    slot.child.kill('SIGKILL');
  }

  /** Stops every process; queued jobs fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const q of this.queue.splice(0)) q.reject(new RenderError('crash', 'render pool closed'));
    await Promise.all(
      this.slots.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve();
            s.child.once('exit', () => resolve());
            s.child.kill('SIGKILL');
          }),
      ),
    );
    // The sandbox home is per process; leave no temp folder behind.
    rmSync(this.sandboxHome, { recursive: true, force: true });
  }

  private spawn(): Slot {
    const env = {
      HOME: this.sandboxHome,
      XDG_CACHE_HOME: this.sandboxHome,
      XDG_DATA_HOME: this.sandboxHome,
      TYPST_PACKAGE_PATH: this.sandboxHome,
      TYPST_PACKAGE_CACHE_PATH: this.sandboxHome,
      HTTP_PROXY: 'http://127.0.0.1:9',
      HTTPS_PROXY: 'http://127.0.0.1:9',
      ALL_PROXY: 'http://127.0.0.1:9',
      NO_PROXY: '',
    };
    const child = fork(childScript, [], {
      env,
      execArgv: fromSource ? ['--import', 'tsx'] : [],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const slot: Slot = { child, busy: null, dying: false };
    child.stderr?.on('data', (d: Buffer) => this.logger.debug({ stderr: d.toString().slice(0, 500) }, 'render process said'));
    child.on('message', (reply: RenderReply) => this.finish(slot, reply));
    child.on('exit', (code, signal) => {
      const busy = slot.busy;
      slot.busy = null;
      if (busy) {
        clearTimeout(busy.timer);
        busy.reject(new RenderError('crash', `render process ended (${signal ?? code}) while rendering`));
      }
      if (!this.closed) {
        const i = this.slots.indexOf(slot);
        if (i >= 0) this.slots[i] = this.spawn();
        this.pump();
      }
    });
    return slot;
  }

  private finish(slot: Slot, reply: RenderReply): void {
    const busy = slot.busy;
    if (!busy || busy.job.id !== reply.id) return;
    clearTimeout(busy.timer);
    slot.busy = null;
    if (reply.rssBytes > this.maxRssBytes) {
      this.logger.debug({ rssBytes: reply.rssBytes }, 'recycling a grown render process');
      slot.dying = true;
      slot.child.kill('SIGKILL');
    }
    if (reply.ok) busy.resolve({ pdf: Buffer.from(reply.pdf), pages: reply.pages, warnings: reply.warnings, msecs: reply.msecs, ...(reply.preview ? { preview: reply.preview } : {}) });
    else busy.reject(new RenderError('template', reply.message, reply.diagnostics, reply.details));
    this.pump();
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.busy || slot.dying || !slot.child.connected) continue;
      const next = this.queue.shift()!;
      const timeoutMs = next.timeoutMs;
      const timer = setTimeout(() => {
        this.logger.warn({ timeoutMs }, 'render exceeded its time limit; stopping its process');
        this.stop(slot, new RenderError('timeout', `render stopped after ${timeoutMs} ms (time limit)`));
      }, timeoutMs);
      slot.busy = { ...next, timer, deadline: Date.now() + timeoutMs };
      slot.child.send(next.job);
    }
  }
}
