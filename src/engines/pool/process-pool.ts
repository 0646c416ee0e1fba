import type { PoolStats, ProcessPoolOptions, ProcessRef, RunOptions } from './pool-options.js';
import { PoolError } from './pool-error.js';
import type { ChildMessage } from './protocol.js';
import { jobCeilingBytes, processDataLimit } from './memory.js';
import { ProcessSlot, type JobWatch } from './process-slot.js';
import { MemoryFloor } from './memory-floor.js';
import { markForRecycling } from './recycling.js';
import { buildJob, cancelOnAbort, takeBackAhead, type Task } from './pool-task.js';
import { endedDuringJob, jobWatch, sendError, type ReplaceReason } from './job-watch.js';

/**
 * The one supervisor of engine processes (Typst, MuPDF, XSLT): starts and warms them, hands
 * each a job at a time (and, with `ahead`, its next one), queues jobs while all are busy, kills
 * a process at its job's time limit or memory ceiling, replaces crashed processes, recycles
 * grown ones, and closes cleanly.
 * Engines run in processes, not threads, because native code (Typst) can only be stopped by
 * killing its process, and a process is what an OS memory limit applies to.
 */
export class ProcessPool<Job, Result, Progress = never> {
  private readonly slots: ProcessSlot<Task<Job, Result, Progress>>[] = [];
  private readonly alive = new Set<ProcessSlot<Task<Job, Result, Progress>>>();
  private readonly queue: Task<Job, Result, Progress>[] = [];
  private readonly counters = { started: 0, replaced: { timeout: 0, memory: 0, crash: 0, recycled: 0 } };
  private closed = false;
  /** Pumps again when a job sent ahead may be taken back. */
  private takeBackTimer: NodeJS.Timeout | null = null;

  constructor(private readonly opts: ProcessPoolOptions) {
    this.refill();
  }

  /**
   * Runs a job, or builds it once a process is free for it: for jobs that depend on earlier
   * results, or on what that process already holds (`process` is the same object for all of
   * one process's jobs, and a new one for its replacement).
   */
  run(job: Job | ((process: ProcessRef) => Job), options: RunOptions<Progress> = {}): Promise<Result> {
    if (this.closed) return Promise.reject(new PoolError('closed', `the ${this.opts.name} pool is closed`));
    if (options.signal?.aborted) return Promise.reject(new PoolError('cancelled', `${this.opts.name} job cancelled`));
    return new Promise((resolve, reject) => {
      const task: Task<Job, Result, Progress> = { job, timeoutMs: options.timeoutMs ?? this.opts.timeoutMs, onProgress: options.onProgress, resolve, reject, signal: options.signal };
      this.queue.push(task);
      if (options.signal) cancelOnAbort(task, options.signal, { name: this.opts.name, queue: this.queue, slots: this.slots, fail: (slot, err) => this.fail(slot, err) });
      this.pump();
    });
  }

  /**
   * Starts a process ahead of work that is known to come, when none runs and none is asked
   * for. The first job to arrive while it starts waits for it instead of starting another.
   */
  prestart(): void {
    if (!this.closed && this.slots.length === 0 && this.queue.length === 0) this.start();
  }

  stats(): PoolStats {
    const count = (state: string) => this.slots.filter((s) => s.state === state).length;
    const ahead = this.slots.filter((s) => s.ahead && !s.ahead.abandoned).length;
    return { size: this.opts.size, starting: count('starting'), idle: count('idle'), busy: count('busy'), queued: this.queue.length + ahead, ...structuredClone(this.counters) };
  }

  /** Stops every process; queued and running jobs fail with `closed`. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.takeBackTimer) clearTimeout(this.takeBackTimer);
    for (const task of this.queue.splice(0)) task.reject(new PoolError('closed', `the ${this.opts.name} pool is closed`));
    for (const slot of this.alive) {
      slot.ahead?.task.reject(new PoolError('closed', `the ${this.opts.name} pool is closed`));
      slot.finish()?.reject(new PoolError('closed', `the ${this.opts.name} pool is closed`));
    }
    this.slots.length = 0;
    await Promise.all([...this.alive].map((slot) => slot.kill()));
  }

  private start(replaces: ProcessSlot<Task<Job, Result, Progress>> | null = null): void {
    const slot = new ProcessSlot<Task<Job, Result, Progress>>(this.opts.command(), processDataLimit(this.opts), this.opts.logger.child({ engine: this.opts.name }));
    slot.replaces = replaces;
    if (this.opts.recycleOnFloorRise) slot.floor = new MemoryFloor(this.opts.recycleOnFloorRise);
    this.counters.started++;
    this.slots.push(slot);
    this.alive.add(slot);
    slot.watchStartup(this.opts.startupTimeoutMs ?? 30_000, () => {
      this.opts.logger.warn({ engine: this.opts.name }, 'engine process did not start in time');
      this.retire(slot);
    });
    slot.child.on('message', (message: ChildMessage<Result, Progress>) => {
      if ('ready' in message) {
        slot.ready();
        // The grown process it replaces leaves now, or after the job it is running.
        if (slot.replaces?.state === 'idle') this.retire(slot.replaces);
        this.pump();
      } else this.receive(slot, message);
    });
    slot.child.once('exit', (code, signal) => {
      this.exited(slot, signal ?? `exit code ${code}`);
    });
  }

  private pump(): void {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (slot.state !== 'idle') continue;
      // With nothing queued, a job waiting behind another process's running one starts here.
      const task = this.queue.shift() ?? this.takeBackAhead();
      if (!task) break;
      this.dispatch(slot, task);
    }
    if (this.opts.ahead) {
      for (const slot of this.slots) {
        if (this.queue.length === 0) break;
        if (slot.state === 'busy' && slot.ahead === null && !slot.recycling) this.sendAhead(slot, this.queue.shift()!);
      }
    }
    // Start processes for waiting work; each takes a job once it says it is ready.
    let starting = this.slots.filter((s) => s.state === 'starting').length;
    while (this.queue.length > starting && this.slots.length < this.opts.size) {
      this.start();
      starting++;
    }
  }

  private dispatch(slot: ProcessSlot<Task<Job, Result, Progress>>, task: Task<Job, Result, Progress>): void {
    const job = this.jobFor(slot, task);
    if (job === undefined) return this.pump();
    slot.begin(task, job.job, this.watchFor(slot, task));
  }

  private sendAhead(slot: ProcessSlot<Task<Job, Result, Progress>>, task: Task<Job, Result, Progress>): void {
    const job = this.jobFor(slot, task);
    if (job === undefined) return;
    slot.sendAhead(task, job.job, (err) => this.replace(slot, 'crash', sendError(this.opts.name, err)));
  }

  /** The task's job as built for this process; undefined (and the task rejected) when building it threw. */
  private jobFor(slot: ProcessSlot<Task<Job, Result, Progress>>, task: Task<Job, Result, Progress>): { job: Job } | undefined {
    const built = buildJob(task, slot.ref);
    if ('error' in built) task.reject(built.error);
    return 'job' in built ? built : undefined;
  }

  /** A task sent ahead that an idle process may take back now; else a pump is set for when one may. */
  private takeBackAhead(): Task<Job, Result, Progress> | undefined {
    const found = takeBackAhead(this.slots, performance.now());
    if ('task' in found) return found.task;
    if (found.waitMs < Infinity && !this.takeBackTimer) {
      this.takeBackTimer = setTimeout(() => {
        this.takeBackTimer = null;
        this.pump();
      }, Math.ceil(found.waitMs));
      this.takeBackTimer.unref();
    }
    return undefined;
  }

  private watchFor(slot: ProcessSlot<Task<Job, Result, Progress>>, task: Task<Job, Result, Progress>): JobWatch {
    const { name, logger, memoryCeilingBytes, pollMs } = this.opts;
    const ceilingBytes = () => jobCeilingBytes(this.opts, this.slots, slot);
    return jobWatch({ name, logger, memoryCeilingBytes, pollMs, ceilingBytes, replace: (reason, err) => this.replace(slot, reason, err) }, task.timeoutMs);
  }

  /** Fails the slot's running job for `reason` and replaces its process. */
  private replace(slot: ProcessSlot<Task<Job, Result, Progress>>, reason: ReplaceReason, err: PoolError): void {
    this.counters.replaced[reason]++;
    this.fail(slot, err);
  }

  private receive(slot: ProcessSlot<Task<Job, Result, Progress>>, message: Exclude<ChildMessage<Result, Progress>, { ready: true }>): void {
    // A job taken back can be skipped before the job in front of it has answered: the process
    // reads the cancel while it finishes that job.
    if ('skipped' in message && slot.ahead?.id === message.id) {
      slot.ahead = null;
      return this.pump();
    }
    if (slot.jobId !== message.id) return;
    if ('progress' in message) {
      slot.progressed();
      try {
        slot.task?.onProgress?.(message.progress);
      } catch (err) {
        this.fail(slot, err as Error);
      }
      return;
    }
    const task = slot.finish();
    if (!task) return;
    if (this.replacementReady(slot)) this.retire(slot);
    else {
      // `skipped`: a job taken back before it started (it runs elsewhere); nothing to settle.
      if (!('skipped' in message)) this.afterJob(slot, message.rss, message.keeps);
      // The process went on to the job sent ahead.
      if (slot.ahead) slot.promote(this.watchFor(slot, slot.ahead.task));
    }
    if ('skipped' in message) return this.pump();
    if ('error' in message) task.reject(new PoolError('crash', `${this.opts.name} process failed: ${message.error}`));
    else task.resolve(message.result);
    this.pump();
  }

  /** Starts a replacement for a process that is due for recycling; it serves on until that one is ready. */
  private afterJob(slot: ProcessSlot<Task<Job, Result, Progress>>, reported: number | undefined, keeps = 0): void {
    if (!markForRecycling(this.opts, slot, reported, keeps)) return;
    this.counters.replaced.recycled++;
    if (this.closed) this.retire(slot);
    else this.start(slot);
  }

  /** Whether a recycling process's replacement is ready to take its place. */
  private replacementReady(slot: ProcessSlot<Task<Job, Result, Progress>>): boolean {
    return slot.recycling && this.slots.some((s) => s.replaces === slot && s.wasReady);
  }

  /** Fails the slot's running job and replaces the process. */
  private fail(slot: ProcessSlot<Task<Job, Result, Progress>>, err: Error): void {
    slot.finish()?.reject(err);
    this.retire(slot);
    this.pump();
  }

  /** Takes a process out of service and kills it; its exit refills the pool. */
  private retire(slot: ProcessSlot<Task<Job, Result, Progress>>): void {
    this.requeueAhead(slot);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.kill();
  }

  /** The job sent ahead to a process that is going away has not started there: it goes first in the queue. */
  private requeueAhead(slot: ProcessSlot<Task<Job, Result, Progress>>): void {
    const ahead = slot.ahead;
    slot.ahead = null;
    if (ahead && !ahead.abandoned) this.queue.unshift(ahead.task);
  }

  private exited(slot: ProcessSlot<Task<Job, Result, Progress>>, how: string): void {
    this.requeueAhead(slot);
    this.alive.delete(slot);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    // A replacement that died before it was ready: the grown process may try again after its next job.
    if (slot.replaces && !slot.wasReady) slot.replaces.recycling = false;
    const task = slot.finish();
    if (task) {
      const { reason, error } = endedDuringJob(this.opts.name, slot, this.opts.memoryCeilingBytes, how);
      this.counters.replaced[reason]++;
      this.opts.logger.warn({ engine: this.opts.name, how, stderr: slot.stderr }, 'engine process ended during a job');
      task.reject(error);
    }
    if (this.closed) return;
    if (!slot.wasReady) {
      // A process that cannot start would fail again: fail the waiting work instead of looping.
      this.opts.logger.error({ engine: this.opts.name, how, stderr: slot.stderr }, 'engine process could not start');
      for (const t of this.queue.splice(0)) t.reject(new PoolError('crash', `the ${this.opts.name} process could not start (${how})`, { how, stderr: slot.stderr, starting: true }));
      return;
    }
    this.refill();
    this.pump();
  }

  private refill(): void {
    if (!this.opts.warm || this.closed) return;
    while (this.slots.length < this.opts.size) this.start();
  }
}
