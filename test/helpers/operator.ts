import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ADMIN_PASSWORD } from './server.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Runs `pressroom operator create --password-stdin` on the store `env` names, as an operator
 * does before starting a cluster's api and worker processes (they create no operator
 * themselves). An operator that exists already is fine: callers may share one store.
 */
export async function createOperatorWithCli(env: Record<string, string>): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'operator', 'create', '--password-stdin'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env, PRESSROOM_LOG_LEVEL: 'silent' },
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  child.stdin.end(ADMIN_PASSWORD + '\n');
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0 && !/exists/.test(out)) throw new Error(`operator create exited ${code}: ${out}`);
}
