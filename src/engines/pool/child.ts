import type { ChildMessage, JobMessage } from './protocol.js';

export interface ServeOptions {
  /**
   * Work after every job that its caller need not wait for (a cache trim): it runs once the
   * answer has been handed to the channel, before the process reads its next job.
   */
  afterEach?: () => void;
}

/**
 * The child side of the pool's protocol, for engine programs written as modules: answers each
 * job with what `handle` returns (its progress messages first) and says `ready` once loaded.
 * A handler that throws answers `error`; engines return their own failures as results instead.
 */
export function serveJobs<Job, Result, Progress = never>(handle: (job: Job, progress: (p: Progress) => void) => Result | Promise<Result>, opts: ServeOptions = {}): void {
  const send = (message: ChildMessage<Result, Progress>, sent?: () => void): void => {
    if (sent) process.send?.(message, sent);
    else process.send?.(message);
  };
  // Node calls a send's callback once the message is written to the channel (on the next tick
  // when the write completes at once), before any further message is read.
  const after = opts.afterEach;
  process.on('message', (message: JobMessage<Job>) => {
    void (async () => {
      try {
        const result = await handle(message.job, (progress) => send({ id: message.id, progress }));
        send({ id: message.id, result, rss: process.memoryUsage.rss() }, after);
      } catch (err) {
        send({ id: message.id, error: err instanceof Error ? err.message : String(err), rss: process.memoryUsage.rss() }, after);
      }
    })();
  });
  // The parent owns this process: when it goes (even by SIGKILL), stop rather than linger.
  process.on('disconnect', () => process.exit(0));
  send({ ready: true });
}
