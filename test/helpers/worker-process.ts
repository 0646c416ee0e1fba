import { spawn, type ChildProcess } from 'node:child_process';
import type { Settings } from '../../src/config/settings.js';
import { descendants } from './processes.js';

/** Starts `pressroom serve --role worker` as a separate process on the same store as `settings`. */
export function startWorkerProcess(settings: Settings, extraEnv: Record<string, string> = {}): ChildProcess {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    PRESSROOM_DATA: settings.dataDir,
    PRESSROOM_ROLE: 'worker',
    PRESSROOM_POLL_MS: '100',
    PRESSROOM_RENDER_THREADS: '1',
    PRESSROOM_LOG_LEVEL: 'silent',
    ...(settings.databaseUrl ? { PRESSROOM_DATABASE_URL: settings.databaseUrl, PRESSROOM_DATABASE_SCHEMA: settings.databaseSchema } : {}),
    ...extraEnv,
  };
  return spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve'], { env, stdio: 'ignore' });
}

/**
 * Kills a process and everything it started at once with SIGKILL, as a crash of its machine
 * or container would (a render process left alone would run its template to the end).
 */
export function crash(child: ChildProcess): Promise<void> {
  const tree = descendants(child.pid!);
  const exited = new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));
  child.kill('SIGKILL');
  for (const pid of tree) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  return exited;
}

/** Sends a signal and waits for the exit code. */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}
