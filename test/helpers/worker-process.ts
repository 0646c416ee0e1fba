import { spawn, type ChildProcess } from 'node:child_process';
import type { Settings } from '../../src/config/settings.js';

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

/** Sends a signal and waits for the exit code. */
export function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    child.once('exit', (code) => resolve(code));
    child.kill(signal);
  });
}
