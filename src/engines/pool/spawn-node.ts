import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

/** How an engine's process is started: Node.js arguments (flags, then a script or `-e` source), environment, folder. */
export interface NodeCommand {
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

/**
 * For an engine process's environment (GLIBC_TUNABLES): glibc's allocator asks the kernel for
 * transparent huge pages (`madvise`; glibc 2.35 and later; older ones and other C libraries
 * ignore it). A page a process touches for the first time is a page fault; on this project's
 * machines (virtual, 2 cores) one costs 11–14 µs, and 2 MiB pages take a 512th of the faults.
 * - The MuPDF processes get it: a merge receives and answers megabytes over IPC in Node.js
 *   buffers, which glibc allocates. A 1000-part fanout's merge step took 1.10 against 1.22 s
 *   (mean of eight alternated pairs, shorter in six). Conversions showed no difference (four
 *   pairs).
 * - The Typst render processes get it with glibc's mmap threshold fixed, or their memory floor
 *   (MemoryFloor) rises with the files they keep (engines/typst/render-allocator.ts).
 * - Not the server: there the same setting cost more CPU per ticket in four alternated
 *   pairs of four.
 * Where the kernel's huge pages are `always` or `never` (/sys/kernel/mm/transparent_hugepage/
 * enabled) it changes nothing.
 */
export const HUGE_PAGES_TUNABLE = 'glibc.malloc.hugetlb=1';

const shell = process.platform !== 'win32' && existsSync('/bin/sh') ? '/bin/sh' : null;

/**
 * Starts `node` with an IPC channel. With a data limit, the shell sets RLIMIT_DATA (soft and
 * hard, so the child cannot raise it) and then becomes node through `exec`, keeping the same
 * process id and the IPC channel; a limit the shell cannot set (a lower one is already in
 * force) is left as it is. Without /bin/sh, node starts without an OS limit and only the pool's
 * polling enforces the ceiling.
 */
export function spawnNode(command: NodeCommand, dataLimitBytes: number | undefined): ChildProcess {
  const options = {
    env: command.env ?? {},
    ...(command.cwd ? { cwd: command.cwd } : {}),
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'] as ('ignore' | 'pipe' | 'ipc')[],
    serialization: 'advanced' as const,
  };
  if (dataLimitBytes === undefined || shell === null) return spawn(process.execPath, command.args, options);
  const kib = String(Math.floor(dataLimitBytes / 1024));
  return spawn(shell, ['-c', 'ulimit -d "$0" 2>/dev/null; exec "$@"', kib, process.execPath, ...command.args], options);
}
