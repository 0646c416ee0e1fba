import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';

/** How an engine's process is started: Node.js arguments (flags, then a script or `-e` source), environment, folder. */
export interface NodeCommand {
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

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
