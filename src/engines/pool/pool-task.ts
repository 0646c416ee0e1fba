import type { ProcessRef } from './pool-options.js';
import type { ProcessSlot } from './process-slot.js';
import { PoolError } from './pool-error.js';

/** A job as the pool holds it: what to run, its time limit, and whom to tell the outcome. */
export interface Task<Job, Result, Progress> {
  job: Job | ((process: ProcessRef) => Job);
  timeoutMs: number;
  onProgress: ((progress: Progress) => void) | undefined;
  resolve: (result: Result) => void;
  reject: (err: Error) => void;
  signal: AbortSignal | undefined;
}

/** The task's job, built for `process` when it is a builder; or what building it threw. */
export function buildJob<J, R, P>(task: Task<J, R, P>, process: ProcessRef): { job: J } | { error: Error } {
  try {
    return { job: typeof task.job === 'function' ? (task.job as (process: ProcessRef) => J)(process) : task.job };
  } catch (err) {
    return { error: err as Error };
  }
}

/**
 * A job sent ahead is taken back for an idle process only once the job in front of it has run
 * this long. Before that, the busy process is likely to reach it first, and taking it back just
 * as that process starts it would run it twice.
 */
const TAKE_BACK_AFTER_MS = 20;

/** What a process keeps of a task taken back from it: the time limit, and no one to tell. */
function standIn<J, R, P>(task: Task<J, R, P>): Task<J, R, P> {
  return { ...task, onProgress: undefined, resolve: () => {}, reject: () => {}, signal: undefined };
}

/**
 * For an idle process, with nothing queued: a task sent ahead to a busy process that has not
 * started it, taken back from there once the job in front of it has run long enough; or, when
 * none may be taken yet, how long until one may (Infinity: there is none).
 */
export function takeBackAhead<J, R, P>(slots: readonly ProcessSlot<Task<J, R, P>>[], now: number): { task: Task<J, R, P> } | { waitMs: number } {
  let waitMs = Infinity;
  for (const slot of slots) {
    if (slot.state !== 'busy' || !slot.ahead || slot.ahead.abandoned) continue;
    const wait = slot.runningSince + TAKE_BACK_AFTER_MS - now;
    const task = wait > 0 ? null : slot.takeBackAhead(standIn);
    if (task) return { task };
    waitMs = Math.min(waitMs, wait);
  }
  return { waitMs };
}

/** A cancelled task, if it was sent ahead to a process: taken back (the process skips it). Returns whether it was. */
function cancelAhead<J, R, P>(slots: readonly ProcessSlot<Task<J, R, P>>[], task: Task<J, R, P>): boolean {
  return slots.some((s) => s.takeBackAhead((t) => (t === task ? standIn(t) : null)) === task);
}

/** What {@link cancelOnAbort} needs of its pool. */
interface PoolView<J, R, P> {
  name: string;
  queue: Task<J, R, P>[];
  slots: readonly ProcessSlot<Task<J, R, P>>[];
  /** Fails the slot's running job and replaces its process. */
  fail: (slot: ProcessSlot<Task<J, R, P>>, err: Error) => void;
}

/**
 * Cancels the task when `signal` aborts: a queued task leaves the queue, one sent ahead is taken
 * back (its process skips it); a running one may still finish within a grace second, since a
 * warm process is worth keeping, else its process goes.
 */
export function cancelOnAbort<J, R, P>(task: Task<J, R, P>, signal: AbortSignal, pool: PoolView<J, R, P>): void {
  const cancelled = () => new PoolError('cancelled', `${pool.name} job cancelled`);
  signal.addEventListener(
    'abort',
    () => {
      const at = pool.queue.indexOf(task);
      if (at >= 0) return void pool.queue.splice(at, 1)[0]!.reject(cancelled());
      if (cancelAhead(pool.slots, task)) return void task.reject(cancelled());
      setTimeout(() => {
        const slot = pool.slots.find((s) => s.task === task);
        if (slot) pool.fail(slot, cancelled());
      }, 1000).unref();
    },
    { once: true },
  );
}
