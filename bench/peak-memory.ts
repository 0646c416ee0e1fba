// The peak memory (PSS) of process trees while a section runs, at little cost to them.
//
// PSS comes from /proc/<pid>/smaps_rollup, which walks the process's memory: 2–5 ms of kernel
// time per process here (~10 ms for a server and its two render processes), during which the
// process cannot map or unmap memory. Read every 200 ms on the benchmark's thread, it cost the
// service it measured: synchronous requests timed while it sampled had a p95 1.0–2.8 ms higher
// than those timed while it did not (6 runs of 480 requests each way, in alternate blocks of 60);
// on a thread of its own, 6.6 ms higher (2 runs; the server then stalls beside its client). RSS
// is the kernel's counter, read in microseconds, and PSS only moves far when RSS does: sampled
// this way, p95 was 0.3–0.6 ms higher with sampling than without (2 runs, the blocks' order
// alternated), a tick costs ~0.4 ms, and the peak matched a 200 ms PSS sampler's within 1 MiB.
import { processTree, rssOf, treeMemory, type TreeMemory } from './procfs.js';

/** A tree's RSS must exceed the one at the last PSS reading by this share before PSS is read again. */
const RSS_RISE = 0.01;

const none = (): TreeMemory => ({ pss: 0, rss: 0, rootPss: 0, processes: 0 });

/**
 * Keeps the peak of the summed tree memory of some roots, sampled every `everyMs`. Each sample
 * reads the trees' RSS; their PSS only when a process came or went since the last PSS reading,
 * or their RSS rose above it by 1 %, and once more when sampling stops. So the peak misses a rise
 * of PSS that comes without a rise of RSS: pages shared with processes that exit meanwhile (other
 * than those of the trees, which count as a change), or a rise under 1 %.
 */
export class PeakMemory {
  peak: TreeMemory = none();
  private timer: NodeJS.Timeout | undefined;
  /** The processes and their RSS at the last PSS reading. */
  private read: { pids: string; rss: number } | undefined;

  constructor(
    private readonly roots: () => number[],
    private readonly everyMs = 200,
  ) {}

  start(): this {
    this.sample(true);
    this.timer = setInterval(() => this.sample(), this.everyMs).unref();
    return this;
  }

  sample(force = false): void {
    const trees = this.roots().map((root) => ({ root, tree: processTree(root) }));
    const pids = trees.map((t) => t.tree.join(',')).join(';');
    const rss = trees.reduce((sum, t) => sum + t.tree.reduce((s, pid) => s + rssOf(pid), 0), 0);
    if (!force && this.read && this.read.pids === pids && rss <= this.read.rss * (1 + RSS_RISE)) return;
    const now = none();
    for (const { root, tree } of trees) {
      const m = treeMemory(root, tree);
      now.pss += m.pss;
      now.rss += m.rss;
      now.rootPss += m.rootPss;
      now.processes += m.processes;
    }
    this.read = { pids, rss: Math.max(rss, this.read?.pids === pids ? this.read.rss : 0) };
    if (now.pss > this.peak.pss) this.peak = now;
  }

  stop(): TreeMemory {
    if (this.timer) this.sample(true);
    clearInterval(this.timer);
    this.timer = undefined;
    return this.peak;
  }
}
