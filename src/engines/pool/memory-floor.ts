/** When a process whose memory floor rose is replaced. */
export interface FloorRise {
  /** Jobs a process runs before its floor is taken as its baseline: its caches fill and its heaps settle first. */
  settleJobs: number;
  /** Jobs over which the lowest reported size is the floor: one big job does not raise it. */
  windowJobs: number;
  /** How far the floor may rise above the baseline. */
  marginBytes: number;
}

/**
 * The memory a process holds between jobs beyond what it says it keeps on purpose, as the
 * lowest of the sizes it reported over its last jobs, against the same figure once it had
 * settled. A raised floor is memory the process no longer uses yet does not give back: when a
 * native engine's memory is freed late, in bulk, glibc keeps the pages in its heap (a Typst
 * process that had grown from 83 to 197 MiB this way went to 121 MiB when `malloc_trim` was
 * called into it with gdb). One big job does not raise the floor, and a process whose jobs are
 * all big settles at a high baseline, so neither is replaced for it.
 */
export class MemoryFloor {
  private readonly recent: number[] = [];
  private next = 0;
  private baseline: number | undefined;

  constructor(private readonly rise: FloorRise) {}

  /**
   * Records what the process held after its `jobs`-th job, less what it keeps on purpose; true
   * when its floor has risen past the baseline by more than the margin.
   */
  risen(jobs: number, bytes: number): boolean {
    const { windowJobs, settleJobs, marginBytes } = this.rise;
    this.recent[this.next] = bytes;
    this.next = (this.next + 1) % windowJobs;
    if (jobs < Math.max(settleJobs, windowJobs)) return false;
    const floor = Math.min(...this.recent);
    if (this.baseline === undefined) {
      this.baseline = floor;
      return false;
    }
    return floor > this.baseline + marginBytes;
  }

  /** The settled floor in bytes, once there is one. */
  get settled(): number | undefined {
    return this.baseline;
  }
}
