import type { CancelMessage, ChildMessage, JobMessage } from './protocol.js';

export interface ServeOptions<Job> {
  /**
   * Work after every job that its caller need not wait for (a cache trim): it runs once the
   * answer has been handed to the channel, before the process starts its next job.
   */
  afterEach?: () => void;
  /** Bytes the process keeps on purpose between jobs (files, fonts), reported with each answer. */
  keeps?: () => number;
  /**
   * A job the parent cancelled before it started: whatever the job tells the process to keep or
   * forget beside its own work (resident files) still applies, so both sides keep agreeing.
   */
  onSkipped?: (job: Job) => void;
}

/**
 * The child side of the pool's protocol, for engine programs written as modules: answers each
 * job with what `handle` returns (its progress messages first) and says `ready` once loaded.
 * A handler that throws answers `error`; engines return their own failures as results instead.
 *
 * Jobs run one at a time, in the order sent: the parent may send the next job while one runs
 * (see ProcessPoolOptions.ahead), and one read of the channel can deliver several messages.
 */
export function serveJobs<Job, Result, Progress = never>(handle: (job: Job, progress: (p: Progress) => void) => Result | Promise<Result>, opts: ServeOptions<Job> = {}): void {
  const send = (message: ChildMessage<Result, Progress>, sent?: () => void): void => {
    if (sent) process.send?.(message, sent);
    else process.send?.(message);
  };
  const memory = (): { rss: number; keeps?: number } => (opts.keeps ? { rss: process.memoryUsage.rss(), keeps: opts.keeps() } : { rss: process.memoryUsage.rss() });
  const waiting: JobMessage<Job>[] = [];
  let running = false;
  const next = (): void => {
    const message = waiting.shift();
    running = message !== undefined;
    if (message) void run(message);
  };
  // Node calls a send's callback once the answer is written to the channel. The next job waits
  // for one turn of the event loop with its poll phase, so that a cancel sent while this job ran
  // is read before that job starts.
  const done = (): void => {
    try {
      opts.afterEach?.();
    } finally {
      setImmediate(() => setImmediate(next));
    }
  };
  const run = async (message: JobMessage<Job>): Promise<void> => {
    try {
      const result = await handle(message.job, (progress) => send({ id: message.id, progress }));
      send({ id: message.id, result, ...memory() }, done);
    } catch (err) {
      send({ id: message.id, error: err instanceof Error ? err.message : String(err), ...memory() }, done);
    }
  };
  process.on('message', (message: JobMessage<Job> | CancelMessage) => {
    if ('cancel' in message) {
      const at = waiting.findIndex((m) => m.id === message.cancel);
      if (at < 0) return;
      const [skipped] = waiting.splice(at, 1);
      opts.onSkipped?.(skipped!.job);
      send({ id: message.cancel, skipped: true });
      return;
    }
    waiting.push(message);
    if (!running) next();
  });
  // The parent owns this process: when it goes (even by SIGKILL), stop rather than linger.
  process.on('disconnect', () => process.exit(0));
  send({ ready: true });
}
