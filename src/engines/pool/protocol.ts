// The envelope every pooled child process speaks over its IPC channel (structured clone,
// `serialization: 'advanced'`). The job, progress and result inside are the engine's own.

/** Parent → child: one job. */
export interface JobMessage<Job> {
  id: number;
  job: Job;
}

/**
 * Child → parent: `ready` once, when the process has loaded its engine; then, per job, any
 * number of `progress` messages (each restarts the job's time limit) and one `result` — or
 * `error` when the child's handler threw (the process stays usable).
 */
export type ChildMessage<Result, Progress> =
  | { ready: true }
  | { id: number; progress: Progress }
  | { id: number; result: Result }
  | { id: number; error: string };
