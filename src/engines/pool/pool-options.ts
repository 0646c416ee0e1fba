import type { Logger } from 'pino';
import type { FloorRise } from './memory-floor.js';
import type { NodeCommand } from './spawn-node.js';

/** How a pool runs its processes. */
export interface ProcessPoolOptions {
  /** The engine's name, in logs and messages (`typst`, `mupdf`, `xslt`). */
  name: string;
  /** Processes at most, i.e. jobs running at once; further jobs queue. */
  size: number;
  /** How a process is started (called for every start). */
  command: () => NodeCommand;
  /** Keep `size` processes started and replace them at once (warm); otherwise start them on demand. @defaultValue false */
  warm?: boolean;
  /** Time limit of a job from its hand-over (or its last progress message), unless the job sets its own. */
  timeoutMs: number;
  /** Longest a process may take to say it is ready; up to four times that while it is runnable (starved, not stuck). @defaultValue 30000 */
  startupTimeoutMs?: number;
  /** A process whose resident memory passes this while it runs a job is killed and the job fails (`memory`). */
  memoryCeilingBytes?: number;
  /**
   * The ceiling is each process's share of `size` × `memoryCeilingBytes`, and a job may also use
   * what the other processes leave of that: one big document gets the memory its neighbours do
   * not use. Each job can always reach its own share; one that borrowed is stopped when the
   * others need theirs back. @defaultValue false
   */
  shareMemory?: boolean;
  /** A process resident past this after a job is replaced (engines whose caches grow). */
  recycleRssBytes?: number;
  /**
   * A process whose memory floor rose is replaced: the lowest resident size it reported over
   * its last jobs, less what it says it keeps on purpose, past the same figure once it settled
   * (MemoryFloor). For engines whose native heap fragments; needs children that report `rss`.
   */
  recycleOnFloorRise?: FloorRise;
  /** A process is replaced after this many jobs. */
  recycleAfterJobs?: number;
  /**
   * A queued job is sent to a busy process, which starts it the moment its running job ends,
   * without waiting for the server's thread to hand it over. Its time limit starts when the
   * pool learns that the job before it has ended. When a process falls idle with nothing queued, a job
   * still waiting behind another process's running one is taken back and runs there: a short
   * job never waits for a long one while a process is free. @defaultValue false
   */
  ahead?: boolean;
  /** How often a busy process's memory is read. @defaultValue 25 */
  pollMs?: number;
  logger: Logger;
}

/** One engine process, as a job builder sees it: the same object for every job of that process. */
export interface ProcessRef {
  /** Counts processes started in this server process, from 1. */
  readonly serial: number;
}

/** One job's options. */
export interface RunOptions<Progress> {
  timeoutMs?: number;
  /** Receives the job's progress messages in order, before the result. */
  onProgress?: (progress: Progress) => void;
  /** Aborted: a queued job leaves the queue; a running one may finish within a second, else its process is replaced (`cancelled`). */
  signal?: AbortSignal;
}

/** Counters for metrics and tests. */
export interface PoolStats {
  size: number;
  starting: number;
  idle: number;
  busy: number;
  queued: number;
  /** Processes started since the pool was made. */
  started: number;
  /** Processes replaced, by reason. */
  replaced: { timeout: number; memory: number; crash: number; recycled: number };
}
