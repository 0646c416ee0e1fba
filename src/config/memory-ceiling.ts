import { totalmem } from 'node:os';

const MiB = 2 ** 20;

/** The smallest default ceiling: the fixed default of earlier releases, which small machines keep. */
export const MIN_DEFAULT_CEILING_MB = 1024;

/**
 * The memory this process may use: the cgroup limit when it has one (a container), else the
 * machine's memory. `process.constrainedMemory()` reports 0 (or, in older Node releases,
 * undefined) without a limit, and a huge number for "max".
 */
export function machineMemoryBytes(): number {
  const constrained = process.constrainedMemory?.() ?? 0;
  const total = totalmem();
  return constrained > 0 && constrained < total ? constrained : total;
}

/**
 * The default ceiling of one render job: half the memory shared among the render processes,
 * rounded down to 256 MiB, never below 1024 MiB. Typst holds a whole document's layout until
 * the compile ends (about 1.1 GiB for a 250-page catalogue), so a fixed 1024 MiB refused big
 * documents on machines with memory to spare, while half the memory still leaves the other
 * half to the service, the database and the page cache when every process is at its ceiling.
 */
export function defaultMemoryCeilingMb(memoryBytes: number, renderThreads: number): number {
  const share = Math.floor(memoryBytes / MiB / (2 * renderThreads) / 256) * 256;
  return Math.min(65536, Math.max(MIN_DEFAULT_CEILING_MB, share));
}
