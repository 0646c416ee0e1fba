import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import type { Logger } from 'pino';
import { residentBytes, saysOutOfMemory } from './memory.js';
import type { MemoryFloor } from './memory-floor.js';
import type { ProcessRef } from './pool-options.js';
import type { CancelMessage, JobMessage } from './protocol.js';
import { spawnNode, type NodeCommand } from './spawn-node.js';

/** What a slot watches while its job runs, and whom it tells. */
export interface JobWatch {
  timeoutMs: number;
  onTimeout: () => void;
  /** The job's memory ceiling, asked at every poll (it may depend on the other processes). */
  ceilingBytes?: () => number;
  pollMs?: number;
  onCeiling?: (rssBytes: number, ceilingBytes: number) => void;
  onSendError: (err: Error) => void;
}

/**
 * Engine processes run this much nicer than the server. An engine job is CPU-bound for
 * milliseconds to minutes; the server's thread answers requests, takes in tickets and feeds
 * the engines in fractions of a millisecond each. When both want a core, the server goes
 * first: submissions and health checks stay fast under a full render queue, and the engines
 * still get every cycle the server does not use.
 */
const ENGINE_NICENESS = 10;

function lowerPriority(child: ChildProcess, logger: Logger): void {
  if (child.pid === undefined) return;
  try {
    setPriority(child.pid, Math.min(19, getPriority() + ENGINE_NICENESS));
  } catch (err) {
    // Not allowed here (some containers): engines run at the server's priority.
    logger.debug({ err }, 'could not lower an engine process priority');
  }
}

/**
 * A process still starting at its start-up limit is given the limit again while it is runnable
 * or in I/O (starved of CPU at its lower priority on a loaded machine, not stuck), up to this
 * many limits in all. A MuPDF process needs ~0.6 s of CPU to start; at niceness +10 beside busy
 * processes it got too little of it to be ready within 30 s.
 */
const STARTUP_LIMITS_WHILE_RUNNABLE = 4;

/** Whether a process is running, waiting for a CPU, or in uninterruptible I/O (Linux /proc); false where unknown. */
function runnable(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return /^[RD]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return false;
  }
}

let nextJobId = 1;
let nextSerial = 1;

/**
 * One engine process and the job it runs: its state, its time limit, its memory watch, the
 * end of its stderr. The pool decides what happens; the slot keeps the timers honest.
 */
export class ProcessSlot<Task> {
  readonly child: ChildProcess;
  /** Who this process is, for job builders that remember what they sent it. */
  readonly ref: ProcessRef = Object.freeze({ serial: nextSerial++ });
  state: 'starting' | 'idle' | 'busy' | 'retired' = 'starting';
  /** Jobs finished by this process. */
  jobs = 0;
  /** The last 2 000 characters the process wrote to stderr. */
  stderr = '';
  wasReady = false;
  /** A process that grew past its recycling threshold: a replacement is starting. */
  recycling = false;
  /** What the process holds between jobs, when the pool recycles on a raised floor. */
  floor: MemoryFloor | null = null;
  /** The process this one was started to replace; it goes once this one is ready. */
  replaces: ProcessSlot<Task> | null = null;
  task: Task | null = null;
  jobId: number | null = null;
  /**
   * A job sent behind the running one, which the process starts when that one ends: its time
   * limit and memory watch begin then ({@link promote}). `abandoned`: another process runs its
   * task now; this one skips it, or runs it for nothing if it had started.
   */
  ahead: { task: Task; id: number; abandoned: boolean } | null = null;
  /** When the running job started (performance.now()), as far as the pool knows. */
  runningSince = 0;
  private watch: JobWatch | null = null;
  private deadline: NodeJS.Timeout | null = null;
  private poll: NodeJS.Timeout | null = null;
  /** Resident bytes when last read: by the memory poll while busy, by the pool after a job. */
  rss = 0;
  /** The running job's memory ceiling at the last poll (0 before the first). */
  private ceiling = 0;
  private readonly exit: Promise<void>;
  private startup: NodeJS.Timeout | null = null;

  constructor(command: NodeCommand, dataLimitBytes: number | undefined, logger: Logger) {
    this.child = spawnNode(command, dataLimitBytes);
    lowerPriority(this.child, logger);
    this.exit = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-2000);
      logger.debug({ stderr: chunk.toString().slice(0, 500) }, 'engine process said');
    });
    // A failed send or a dead pipe also surfaces as 'exit'; keep 'error' from being thrown.
    this.child.on('error', (err) => logger.warn({ err }, 'engine process error'));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Calls `onStuck` when the process has not said it is ready within `limitMs` (longer while it is runnable). */
  watchStartup(limitMs: number, onStuck: () => void): void {
    let limits = 0;
    const check = (): void => {
      limits++;
      if (limits < STARTUP_LIMITS_WHILE_RUNNABLE && this.pid !== undefined && runnable(this.pid)) this.startup = setTimeout(check, limitMs);
      else onStuck();
    };
    this.startup = setTimeout(check, limitMs);
    this.child.once('exit', () => this.stopStartupWatch());
  }

  private stopStartupWatch(): void {
    if (this.startup) clearTimeout(this.startup);
    this.startup = null;
  }

  ready(): void {
    this.stopStartupWatch();
    this.wasReady = true;
    if (this.state === 'starting') this.state = 'idle';
  }

  /** Hands the process a job and starts its time limit and memory watch. */
  begin(task: Task, job: unknown, watch: JobWatch): void {
    const id = nextJobId++;
    this.watchJob(task, id, watch);
    this.send({ id, job }, (err) => {
      if (this.jobId === id) watch.onSendError(err);
    });
  }

  /** Sends a job to start when the running one ends; `onSendError` as in a watch. */
  sendAhead(task: Task, job: unknown, onSendError: (err: Error) => void): void {
    const id = nextJobId++;
    this.ahead = { task, id, abandoned: false };
    this.send({ id, job }, (err) => {
      if (this.ahead?.id === id) onSendError(err);
    });
  }

  /** The running job ended and the process went on to the job sent ahead: it runs now, under `watch`. */
  promote(watch: JobWatch): void {
    const ahead = this.ahead;
    if (!ahead) return;
    this.ahead = null;
    this.watchJob(ahead.task, ahead.id, watch);
  }

  /**
   * Takes back the task sent ahead, to run elsewhere: the process is told to skip it, and keeps
   * the stand-in `standIn` makes of it, whose outcome nobody waits for (null: not this task).
   */
  takeBackAhead(standIn: (task: Task) => Task | null): Task | null {
    const ahead = this.ahead;
    if (!ahead || ahead.abandoned) return null;
    const kept = standIn(ahead.task);
    if (!kept) return null;
    this.ahead = { task: kept, id: ahead.id, abandoned: true };
    this.send({ cancel: ahead.id }, () => {});
    return ahead.task;
  }

  private send(message: JobMessage<unknown> | CancelMessage, onError: (err: Error) => void): void {
    this.child.send(message, (err) => {
      if (err) onError(err);
    });
  }

  private watchJob(task: Task, id: number, watch: JobWatch): void {
    this.runningSince = performance.now();
    this.state = 'busy';
    this.task = task;
    this.jobId = id;
    this.watch = watch;
    this.ceiling = 0;
    this.deadline = setTimeout(watch.onTimeout, watch.timeoutMs);
    if (watch.ceilingBytes !== undefined && watch.onCeiling && this.pid !== undefined) {
      const pid = this.pid;
      const { ceilingBytes, onCeiling } = watch;
      this.poll = setInterval(() => {
        const rss = residentBytes(pid);
        if (rss === undefined) return;
        this.rss = rss;
        this.ceiling = ceilingBytes();
        if (rss > this.ceiling) onCeiling(rss, this.ceiling);
      }, watch.pollMs ?? 25);
    }
  }

  /** A progress message restarts the time limit (a long pageset is alive while pages arrive). */
  progressed(): void {
    if (!this.deadline || !this.watch) return;
    clearTimeout(this.deadline);
    this.deadline = setTimeout(this.watch.onTimeout, this.watch.timeoutMs);
  }

  /** Ends the current job (if any) and returns its task; the process becomes idle unless retired. */
  finish(): Task | null {
    const task = this.task;
    if (this.deadline) clearTimeout(this.deadline);
    if (this.poll) clearInterval(this.poll);
    this.deadline = this.poll = null;
    this.task = null;
    this.jobId = null;
    this.watch = null;
    if (task) this.jobs++;
    if (this.state === 'busy') this.state = 'idle';
    return task;
  }

  /** Whether a process that ended during a job ran out of memory: it said so, or it was near its ceiling. */
  diedOfMemory(): boolean {
    return saysOutOfMemory(this.stderr) || (this.ceiling > 0 && this.rss >= 0.9 * this.ceiling);
  }

  /** The running job's memory ceiling as last polled, else `fallback`. */
  ceilingOr(fallback: number): number {
    return this.ceiling || fallback;
  }

  /** Kills the process (SIGKILL: engines hold no state worth a graceful end) and waits for its exit. */
  async kill(): Promise<void> {
    this.state = 'retired';
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
    await this.exit;
  }
}
