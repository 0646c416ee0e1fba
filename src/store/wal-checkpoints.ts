/**
 * WAL checkpoints at moments when the process would wait anyway.
 *
 * SQLite's automatic checkpoint runs inside whichever commit crosses its page count. It copies
 * ~1000 pages and syncs the files, which holds that commit up for several milliseconds. For a
 * synchronous request one at a time, that was every 19th–20th request, and they made most of
 * the slow ones: 14 of the 19–22 requests of 300 that took over p50 + 6 ms. The engine's
 * caller asks for a checkpoint right after handing a render its job, and this one then runs
 * beside the render, where the disk's syncs hold up no request. At most one runs per
 * `intervalMs`; SQLite's automatic checkpoint stays for writes that no render follows.
 */
export class IdleCheckpoints {
  private running = false;
  /** When the last checkpoint was asked for; none yet: the first request may run. */
  private lastAsked = -Infinity;

  /**
   * @param checkpoint moves the WAL into the database (SQLite's `wal_checkpoint(PASSIVE)`); in
   *   the service, on a thread of its own (checkpoint-thread.ts).
   */
  constructor(
    private readonly checkpoint: () => Promise<void>,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  /**
   * The caller is about to wait. Unless a checkpoint is running, or one was asked for less than
   * `intervalMs` before `now`, one runs once the current event-loop turn's work is done (the
   * job just sent has left the process by then). Returns whether one was started.
   */
  soon(now: number): boolean {
    if (this.running || now - this.lastAsked < this.intervalMs) return false;
    this.running = true;
    this.lastAsked = now;
    setImmediate(() => {
      // Through a promise, so that one that throws at once (a database closed meanwhile) is
      // reported like one that fails later, never thrown out of the timer.
      Promise.resolve()
        .then(() => this.checkpoint())
        .catch(this.onError)
        .finally(() => (this.running = false));
    });
    return true;
  }
}
