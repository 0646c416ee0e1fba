import type { ChildMessage, JobMessage } from './protocol.js';

/**
 * The child side of the pool's protocol, for engine programs written as modules: answers each
 * job with what `handle` returns (its progress messages first) and says `ready` once loaded.
 * A handler that throws answers `error`; engines return their own failures as results instead.
 */
export function serveJobs<Job, Result, Progress = never>(handle: (job: Job, progress: (p: Progress) => void) => Result | Promise<Result>): void {
  const send = (message: ChildMessage<Result, Progress>): void => {
    process.send?.(message);
  };
  process.on('message', (message: JobMessage<Job>) => {
    void (async () => {
      try {
        send({ id: message.id, result: await handle(message.job, (progress) => send({ id: message.id, progress })) });
      } catch (err) {
        send({ id: message.id, error: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
  // The parent owns this process: when it goes (even by SIGKILL), stop rather than linger.
  process.on('disconnect', () => process.exit(0));
  send({ ready: true });
}
