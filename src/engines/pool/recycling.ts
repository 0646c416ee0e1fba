import type { MemoryFloor } from './memory-floor.js';
import type { ProcessPoolOptions } from './pool-options.js';
import { mib, residentBytes } from './memory.js';

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

/**
 * After a job: the process's resident memory when anything needs it (the size it reported
 * with its answer, else read from /proc), kept on the slot (what an idle process holds counts
 * against what its neighbours may borrow), and why the process is recycled now, if it is.
 */
function recycleAfterJob(
  opts: Pick<ProcessPoolOptions, 'recycleRssBytes' | 'recycleAfterJobs' | 'shareMemory'>,
  slot: { jobs: number; floor: MemoryFloor | null; pid: number | undefined; rss: number },
  reported: number | undefined,
  keeps: number,
): { reason: RecycleReason; rss: number | undefined } | null {
  const wanted = opts.recycleRssBytes !== undefined || opts.shareMemory || slot.floor !== null;
  const rss = !wanted || slot.pid === undefined ? undefined : (reported ?? residentBytes(slot.pid));
  if (rss !== undefined) slot.rss = rss;
  const reason = recycleReason(opts, slot, rss, keeps);
  return reason === null ? null : { reason, rss };
}

/**
 * Marks a process that has just answered a job for recycling when it grew, its memory floor
 * rose or it served its number of jobs, and says so in the log; returns whether it did. Its
 * replacement starts first and the old process goes on serving until that one is ready, so
 * recycling costs no job a wait (a cold start is a few hundred milliseconds).
 */
export function markForRecycling(
  opts: Pick<ProcessPoolOptions, 'recycleRssBytes' | 'recycleAfterJobs' | 'shareMemory' | 'name' | 'logger'>,
  slot: { jobs: number; floor: MemoryFloor | null; pid: number | undefined; rss: number; recycling: boolean },
  reported: number | undefined,
  keeps: number,
): boolean {
  if (slot.recycling) return false;
  const recycle = recycleAfterJob(opts, slot, reported, keeps);
  if (recycle === null) return false;
  const { reason, rss } = recycle;
  const settledMb = slot.floor?.settled === undefined ? undefined : mib(slot.floor.settled);
  opts.logger.info({ engine: opts.name, reason, rssMb: rss === undefined ? undefined : mib(rss), keepsMb: mib(keeps), settledMb, jobs: slot.jobs }, 'recycling an engine process');
  slot.recycling = true;
  return true;
}
