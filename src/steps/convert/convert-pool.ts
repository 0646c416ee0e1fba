import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import type { ConvertJob, ConvertReply, PageImage } from './protocol.js';

/** Why a conversion failed: a missing page, a raster over the limits, an unreadable PDF, the time limit or the worker. */
export class ConvertError extends Error {
  constructor(
    readonly kind: 'page' | 'too-large' | 'pdf' | 'timeout' | 'crash',
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

interface Task {
  job: ConvertJob;
  timeoutMs: number;
  onPage: (image: PageImage) => void;
  resolve: (r: ConvertResult) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  ready: boolean;
  busy: (Task & { timer: NodeJS.Timeout; plan?: ConvertResult }) | null;
}

const here = fileURLToPath(import.meta.url);
const workerScript = here.replace(/convert-pool\.(ts|js)$/, 'convert-worker.$1');
const fromSource = here.endsWith('.ts');

/** Running from source (tests): worker threads do not inherit tsx's loader, so register it first. */
function tsxBootstrap(): string {
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  return `import(${api}).then((tsx) => { tsx.register(); return import(${JSON.stringify(pathToFileURL(workerScript).href)}); });`;
}

/**
 * MuPDF in worker threads, started on first use up to `size`. A worker that runs past the time
 * limit (which restarts with every finished page) is terminated, and so is one whose WASM heap
 * has grown past `maxHeapBytes`, since WASM memory never shrinks.
 */
export class ConvertPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly size: number,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
    private readonly maxHeapBytes = 512 * 1024 * 1024,
  ) {}

  /** Converts a PDF; `onPage` receives each image in page order before the promise settles. */
  convert(job: Omit<ConvertJob, 'id'>, onPage: (image: PageImage) => void, timeoutMs = this.timeoutMs): Promise<ConvertResult> {
    if (this.closed) return Promise.reject(new ConvertError('crash', 'convert pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ job: { ...job, id: this.nextId++ }, timeoutMs, onPage, resolve, reject });
      this.pump();
    });
  }

  /** Stops every worker; queued conversions fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.queue.splice(0)) t.reject(new ConvertError('crash', 'convert pool closed'));
    await Promise.all(this.slots.splice(0).map((s) => this.stop(s, new ConvertError('crash', 'convert pool closed'))));
  }

  private spawn(): Slot {
    const worker = fromSource ? new Worker(tsxBootstrap(), { eval: true }) : new Worker(workerScript);
    const slot: Slot = { worker, ready: false, busy: null };
    worker.on('message', (msg: ConvertReply | 'ready') => {
      if (msg === 'ready') {
        slot.ready = true;
        this.pump();
      } else this.receive(slot, msg);
    });
    worker.on('error', (err) => this.logger.warn({ err }, 'convert worker failed'));
    worker.on('exit', (code) => {
      this.fail(slot, new ConvertError('crash', `convert worker ended (exit code ${code}) while converting`));
      this.remove(slot);
      // A worker that never got ready would fail again: fail the waiting work instead of looping.
      if (!slot.ready && !this.closed) for (const t of this.queue.splice(0)) t.reject(new ConvertError('crash', 'convert worker could not start'));
      this.pump();
    });
    this.slots.push(slot);
    return slot;
  }

  private receive(slot: Slot, msg: ConvertReply): void {
    const busy = slot.busy;
    if (!busy || busy.job.id !== msg.id) return;
    clearTimeout(busy.timer);
    if (msg.type === 'failed') {
      slot.busy = null;
      busy.reject(new ConvertError(msg.reason, msg.message));
      this.pump();
      return;
    }
    if (msg.type === 'done') {
      slot.busy = null;
      if (msg.heapBytes > this.maxHeapBytes) {
        this.logger.debug({ heapBytes: msg.heapBytes }, 'recycling a grown convert worker');
        this.remove(slot);
        void slot.worker.terminate();
      }
      busy.resolve(busy.plan ?? { pageCount: 0, pages: [] });
      this.pump();
      return;
    }
    if (msg.type === 'plan') busy.plan = { pageCount: msg.pageCount, pages: msg.pages };
    else {
      try {
        busy.onPage({ ...msg.image, data: Buffer.from(msg.image.data.buffer, msg.image.data.byteOffset, msg.image.data.byteLength) });
      } catch (err) {
        this.fail(slot, err as Error);
        this.remove(slot);
        void slot.worker.terminate();
        return;
      }
    }
    busy.timer = this.deadline(slot, busy.timeoutMs);
  }

  private deadline(slot: Slot, timeoutMs: number): NodeJS.Timeout {
    return setTimeout(() => {
      this.logger.warn({ timeoutMs }, 'conversion exceeded its time limit; stopping its worker');
      this.remove(slot);
      void this.stop(slot, new ConvertError('timeout', `conversion stopped after ${timeoutMs} ms without progress (time limit)`));
    }, timeoutMs);
  }

  private fail(slot: Slot, err: Error): void {
    const busy = slot.busy;
    slot.busy = null;
    if (!busy) return;
    clearTimeout(busy.timer);
    busy.reject(err);
  }

  private async stop(slot: Slot, err: Error): Promise<void> {
    this.fail(slot, err);
    await slot.worker.terminate();
  }

  private remove(slot: Slot): void {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
  }

  private pump(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.busy) continue;
      const task = this.queue.shift()!;
      slot.busy = { ...task, timer: this.deadline(slot, task.timeoutMs) };
      slot.worker.postMessage(task.job);
    }
    // Start a worker for waiting work; it takes a task once MuPDF has loaded.
    let starting = this.slots.filter((s) => !s.ready).length;
    while (this.queue.length > starting && this.slots.length < this.size) {
      this.spawn();
      starting++;
    }
  }
}
