import { readFileSync } from 'node:fs';

const MiB = 1024 * 1024;

/** Resident set size of a process in bytes (Linux /proc); undefined where there is no /proc or the process is gone. */
export function residentBytes(pid: number): number | undefined {
  try {
    // status, not statm: statm counts pages, and the page size is not 4 KiB on every machine.
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'));
    return match ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The operating-system data limit (RLIMIT_DATA) that backs a memory ceiling. Polling catches
 * steady growth at the ceiling; this catches one huge allocation between two polls, which then
 * fails at once instead of filling the machine. Resident memory is anonymous memory (bounded
 * by this limit) plus mapped files (the node binary and engine libraries, under 64 MiB), so
 * 1.5 × ceiling − 64 MiB keeps a process below 1.5 × its ceiling. Never below the ceiling.
 */
export function dataLimitBytes(ceilingBytes: number): number {
  return Math.max(ceilingBytes, Math.floor(1.5 * ceilingBytes) - 64 * MiB);
}

/** A process's OS data limit in a pool; one that may borrow its neighbours' memory may reach the pool's whole allowance, no more. */
export function processDataLimit(opts: { memoryCeilingBytes?: number | undefined; size: number; shareMemory?: boolean | undefined }): number | undefined {
  const share = opts.memoryCeilingBytes;
  return share === undefined ? undefined : Math.max(dataLimitBytes(share), opts.shareMemory ? opts.size * share : 0);
}

/**
 * A job's ceiling in a pool that shares memory: the pool's whole allowance (`processes` shares)
 * less what its other processes hold now, never below the job's own share.
 */
export function sharedCeilingBytes(shareBytes: number, processes: number, othersBytes: number): number {
  return Math.max(shareBytes, processes * shareBytes - othersBytes);
}

/**
 * A job's memory ceiling in `slot`: its process's share, plus what the pool's other processes
 * leave of the whole allowance when the pool shares memory.
 */
export function jobCeilingBytes(opts: { memoryCeilingBytes?: number | undefined; size: number; shareMemory?: boolean | undefined }, slots: readonly { rss: number }[], slot: { rss: number }): number {
  const share = opts.memoryCeilingBytes ?? 0;
  if (!opts.shareMemory) return share;
  const others = slots.reduce((sum, s) => (s === slot ? sum : sum + s.rss), 0);
  return sharedCeilingBytes(share, opts.size, others);
}

/** True when a process's last words say it could not allocate memory (Rust, V8, C++, WASM). */
export function saysOutOfMemory(stderr: string): boolean {
  return /memory allocation of \d+ bytes failed|out of memory|allocation failed|bad_alloc|cannot allocate memory/i.test(stderr);
}

/** Bytes as whole MiB, for messages. */
export function mib(bytes: number): number {
  return Math.round(bytes / MiB);
}
