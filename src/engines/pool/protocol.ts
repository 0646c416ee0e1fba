// The envelope every pooled child process speaks over its IPC channel (structured clone,
// `serialization: 'advanced'`). The job, progress and result inside are the engine's own.

/** Parent → child: one job. */
export interface JobMessage<Job> {
  id: number;
  job: Job;
}

/**
 * Parent → child: skip a job sent ahead (another process runs it now). A child that has not
 * started it answers `skipped`; one that has runs it to its end and answers as usual.
 */
export interface CancelMessage {
  cancel: number;
}

/**
 * Child → parent: `ready` once, when the process has loaded its engine; then, per job, any
 * number of `progress` messages (each restarts the job's time limit) and one `result` — or
 * `error` when the child's handler threw (the process stays usable), or `skipped` for a job
 * sent ahead and cancelled before it started (see CancelMessage).
 *
 * `rss` is the child's resident bytes as it answers, before any after-job trim (so if anything
 * above what it holds idle). A child that says it spares the parent a read of /proc/<pid>/status per
 * job, which costs the server's one thread more than the child's own count costs the child; the
 * pool reads /proc for a child that does not say. `keeps` is how many of those bytes the child
 * keeps on purpose between jobs (caches it bounds itself), which a raised floor does not count.
 */
export type ChildMessage<Result, Progress> =
  | { ready: true }
  | { id: number; progress: Progress }
  | { id: number; result: Result; rss?: number; keeps?: number }
  | { id: number; error: string; rss?: number; keeps?: number }
  | { id: number; skipped: true };
