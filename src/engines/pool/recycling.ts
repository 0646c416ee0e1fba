import type { MemoryFloor } from './memory-floor.js';
import type { ProcessPoolOptions } from './pool-options.js';

/** Why a process that has just answered a job is replaced. */
export type RecycleReason = 'grown' | 'floor' | 'jobs';

/**
 * Whether a process is replaced after a job: it is resident past the pool's threshold, its
 * memory floor rose (what it holds beyond `keeps`, the bytes it says it keeps on purpose), or it
 * served its number of jobs. The floor sees every job, also one that is replaced for another reason.
 */
export function recycleReason(
  opts: Pick<ProcessPoolOptions, 'recycleRssBytes' | 'recycleAfterJobs'>,
  slot: { jobs: number; floor: MemoryFloor | null },
  rss: number | undefined,
  keeps: number,
): RecycleReason | null {
  const risen = rss !== undefined && slot.floor !== null && slot.floor.risen(slot.jobs, rss - keeps);
  if (rss !== undefined && opts.recycleRssBytes !== undefined && rss > opts.recycleRssBytes) return 'grown';
  if (risen) return 'floor';
  if (opts.recycleAfterJobs !== undefined && slot.jobs >= opts.recycleAfterJobs) return 'jobs';
  return null;
}
