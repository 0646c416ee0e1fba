import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { checkpointWorker } from './checkpoint-worker.js';

/**
 * The thread's program: the worker function's source, called with its port, the driver and the
 * file. tsx (esbuild keepNames) wraps functions in __name(); outside tsx the shim is unused.
 */
const source = `const __name = (f, n) => Object.defineProperty(f, 'name', { value: n, configurable: true });
const { parentPort, workerData } = require('node:worker_threads');
(${checkpointWorker.toString()})(parentPort, require(workerData.driver), workerData.file);`;
const driver = createRequire(import.meta.url).resolve('better-sqlite3');

/**
 * WAL checkpoints on a thread of their own, with its own connection to the database file.
 *
 * A checkpoint copies the WAL's pages into the database and syncs both files. On the main
 * thread that held everything else up for its whole length: 6.6 ms at the median (10 ms at p95)
 * on this machine's disk. A one-page render takes about as long on a fast day, so the requests
 * that met a checkpoint were the slow ones (with a 3 ms template: 14.8 against 9.0 ms at the
 * median). Here the main thread only posts a message, and SQLite's PASSIVE checkpoint never
 * blocks its writes. The thread starts with the first checkpoint, so a process that never asks
 * pays nothing; it costs the server process 5–6 MiB PSS.
 */
export class CheckpointThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, { resolve: () => void; reject: (err: Error) => void }>();
  private next = 0;
  private closed = false;

  constructor(private readonly file: string) {}

  /** Moves the WAL into the database (SQLite's `wal_checkpoint(PASSIVE)`); rejects with the thread's error. */
  checkpoint(): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the database is closed'));
    const worker = this.worker ?? this.start();
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage(id);
    });
  }

  /** Stops the thread once a checkpoint running there has returned; waiting ones are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
    this.failAll(new Error('the database is closed'));
  }

  private start(): Worker {
    // The thread allocates next to nothing: small heap limits keep its isolate small.
    const worker = new Worker(source, { eval: true, workerData: { file: this.file, driver }, resourceLimits: { maxYoungGenerationSizeMb: 1, maxOldGenerationSizeMb: 16 } });
    // A thread that only waits for messages must not keep the process alive.
    worker.unref();
    worker.on('message', (m: { id: number; error?: string }) => {
      const waiting = this.pending.get(m.id);
      this.pending.delete(m.id);
      if (m.error === undefined) waiting?.resolve();
      else waiting?.reject(new Error(`WAL checkpoint failed: ${m.error}`));
    });
    // A thread that failed to start or died: its checkpoints fail, and the next one starts another.
    const gone = (why: string) => {
      if (this.worker === worker) this.worker = null;
      this.failAll(new Error(`the checkpoint thread ${why}`));
    };
    worker.on('error', (err) => gone(`failed: ${err.message}`));
    worker.on('exit', (code) => gone(`exited (code ${code})`));
    this.worker = worker;
    return worker;
  }

  private failAll(err: Error): void {
    for (const { reject } of this.pending.values()) reject(err);
    this.pending.clear();
  }
}
